//! `growth.svg`: new states and transitions per depth on a log scale,
//! drawn with plotters' SVG backend (no hand-written SVG). One run gives
//! two lines; a diff draws both sides on one chart, A solid (states blue,
//! transitions red) and B dashed on top (states green, transitions
//! orange), so where the sides part shows as lines that stop coinciding.
//!
//! Text is written as SVG `<text>` with a generic font family: plotters
//! is built without a font engine (only its SVG backend and line series),
//! so it estimates label widths and the viewer draws the glyphs.

use plotters::prelude::*;

/// One run's growth: per depth, new states and transitions into it.
pub struct GrowthSeries {
    /// The run's name in the legend (a model name, `A: default`).
    pub name: String,
    /// `(depth, new_states, transitions)`, depth 0 first.
    pub levels: Vec<(usize, u64, u64)>,
}

const WIDTH: u32 = 800;
const HEIGHT: u32 = 480;

/// The chart as SVG text; `title` heads it.
pub fn growth_svg(title: &str, runs: &[GrowthSeries]) -> Result<String, String> {
    let mut svg = String::new();
    draw(&mut svg, title, runs).map_err(|e| format!("cannot draw the growth chart: {e}"))?;
    Ok(svg)
}

fn draw(
    svg: &mut String,
    title: &str,
    runs: &[GrowthSeries],
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::with_string(svg, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let deepest = runs
        .iter()
        .flat_map(|r| r.levels.iter().map(|l| l.0))
        .max()
        .unwrap_or(0)
        .max(1);
    let highest = runs
        .iter()
        .flat_map(|r| r.levels.iter().map(|l| l.1.max(l.2)))
        .max()
        .unwrap_or(1)
        .max(10);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0..deepest, (1u64..highest.saturating_mul(2)).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("depth (actions from the empty store)")
        .y_desc("per depth (log scale)")
        .x_labels(deepest.min(20) + 1)
        .y_label_formatter(&|v| short(*v))
        .draw()?;
    for (i, run) in runs.iter().enumerate() {
        let (states, transitions) = if i == 0 {
            (BLUE, RED)
        } else {
            (RGBColor(0, 150, 60), RGBColor(230, 130, 0))
        };
        for (what, color, pick) in [
            ("new states", states, 1usize),
            ("transitions", transitions, 2usize),
        ] {
            // A log scale has no zero: the levels that add nothing (the
            // fixpoint's last, depth 0's transitions) are left out.
            let points: Vec<(usize, u64)> = run
                .levels
                .iter()
                .map(|l| (l.0, if pick == 1 { l.1 } else { l.2 }))
                .filter(|p| p.1 > 0)
                .collect();
            let style = color.stroke_width(2);
            let label = format!(
                "{}: {what}{}",
                run.name,
                if i == 0 { "" } else { " (dashed)" }
            );
            let legend = move |(x, y): (i32, i32)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            };
            if i == 0 {
                chart
                    .draw_series(LineSeries::new(points.iter().copied(), style))?
                    .label(label)
                    .legend(legend);
            } else {
                chart
                    .draw_series(DashedLineSeries::new(points.iter().copied(), 8, 5, style))?
                    .label(label)
                    .legend(legend);
            }
            chart.draw_series(
                points
                    .iter()
                    .map(|&(x, y)| Circle::new((x, y), 3, color.filled())),
            )?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

/// `12`, `3.4k`, `46M`: axis labels that fit.
fn short(v: u64) -> String {
    match v {
        0..=9_999 => v.to_string(),
        10_000..=999_999 => format!("{}k", v / 1000),
        1_000_000..=999_999_999 => format!("{}M", v / 1_000_000),
        _ => format!("{}G", v / 1_000_000_000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_holds_both_runs_lines_and_legend() {
        let a = GrowthSeries {
            name: "A: default".into(),
            levels: vec![(0, 1, 0), (1, 2, 2), (2, 9, 12), (3, 0, 14)],
        };
        let b = GrowthSeries {
            name: "B: no-gate".into(),
            levels: vec![(0, 1, 0), (1, 2, 2), (2, 11, 13)],
        };
        let svg = growth_svg("growth", &[a, b]).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80.min(svg.len())]);
        assert!(svg.contains("A: default: new states"));
        assert!(svg.contains("B: no-gate: transitions"));
        assert!(svg.contains("stroke-dasharray") || svg.matches("<polyline").count() > 4);
        assert!(svg.trim_end().ends_with("</svg>"));
    }
}
