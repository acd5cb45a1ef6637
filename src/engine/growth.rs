//! Predicting the next level from the growth so far: the visited set is
//! sized from it before each level, and the memory guard estimates from it
//! what the level will need.

use super::report::LevelStats;

/// The predicted number of new states of the level after `levels`: the
/// last level times its growth factor, the factor itself extrapolated
/// from its own trend (growth slows level by level on a finite space),
/// within [½, 1½] of the last factor.
pub(crate) fn predict_new(levels: &[LevelStats]) -> u64 {
    let new = |back: usize| {
        levels
            .len()
            .checked_sub(back)
            .map_or(0.0, |i| levels[i].new_states as f64)
    };
    let (last, prev, prev2) = (new(1), new(2), new(3));
    if prev == 0.0 {
        return last as u64;
    }
    let growth = last / prev;
    let trend = if prev2 > 0.0 {
        (growth / (prev / prev2)).clamp(0.5, 1.5)
    } else {
        1.0
    };
    (last * growth * trend).ceil() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn levels(new: &[u64]) -> Vec<LevelStats> {
        new.iter()
            .enumerate()
            .map(|(depth, &n)| LevelStats {
                depth,
                new_states: n,
                total_states: 0,
                transitions: 0,
                total_transitions: 0,
                elapsed_ms: 0,
            })
            .collect()
    }

    #[test]
    fn the_default_models_levels_are_predicted_within_a_fifth() {
        // reports/default-full/growth.csv, depths 9 to 12.
        let new = [3_084_311, 11_871_067, 30_885_792, 54_058_259, 62_324_042];
        for k in 3..new.len() {
            let predicted = predict_new(&levels(&new[..k])) as f64;
            let actual = new[k] as f64;
            assert!(
                (predicted / actual - 1.0).abs() < 0.2,
                "{k}: {predicted} vs {actual}"
            );
        }
        assert_eq!(predict_new(&levels(&[1])), 1);
        assert_eq!(predict_new(&levels(&[1, 4])), 16);
    }
}
