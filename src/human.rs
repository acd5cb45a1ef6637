//! Numbers as a person reads them, for every human-facing line (issue 29
//! item 6): counts with thousands separators (`130,288,884`), rates
//! rounded and grouped, durations in s, min or h, memory in MB or GB.
//! Machine-readable files (JSON, CSV, summaries, baselines) keep plain
//! numbers and never call this module.
//!
//! GB and MB are powers of 1024, as the `--max-memory` suffixes G and M
//! are, so a limit reads back as it was typed (`--max-memory 8G`: 8.0 GB).

use std::time::Duration;

/// `1234567` as `1,234,567`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A rate per second, rounded to a whole number and grouped
/// (`1,084,230`); a rate below one, or not finite, is `0`.
pub fn rate(per_second: f64) -> String {
    if per_second.is_finite() && per_second >= 0.5 {
        count(per_second.round() as u64)
    } else {
        "0".to_owned()
    }
}

/// A duration: tenths of a second below a minute (`0.4 s`, `59.9 s`),
/// then minutes and seconds (`2 min 05 s`), then hours and minutes
/// (`1 h 03 min`).
pub fn duration(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs < 59.95 {
        return format!("{secs:.1} s");
    }
    let whole = d.as_secs() + u64::from(d.subsec_millis() >= 500);
    if whole < 3600 {
        format!("{} min {:02} s", whole / 60, whole % 60)
    } else {
        format!("{} h {:02} min", whole / 3600, whole % 3600 / 60)
    }
}

/// Bytes as MB below a GB (`512 MB`), GB above (`1.5 GB`), powers of
/// 1024; below one MB, `0.3 MB`.
pub fn bytes(n: u64) -> String {
    const MB: f64 = (1u64 << 20) as f64;
    const GB: f64 = (1u64 << 30) as f64;
    let b = n as f64;
    if b >= GB {
        format!("{:.1} GB", b / GB)
    } else if b >= MB {
        format!("{:.0} MB", b / MB)
    } else {
        format!("{:.1} MB", b / MB)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_by_thousands() {
        for (n, text) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (130_288_884, "130,288,884"),
            (u64::MAX, "18,446,744,073,709,551,615"),
        ] {
            assert_eq!(count(n), text);
        }
    }

    #[test]
    fn rates_are_whole_and_grouped() {
        assert_eq!(rate(1_084_229.6), "1,084,230");
        assert_eq!(rate(0.2), "0");
        assert_eq!(rate(f64::INFINITY), "0");
        assert_eq!(rate(f64::NAN), "0");
    }

    #[test]
    fn durations_read_in_seconds_minutes_or_hours() {
        let ms = Duration::from_millis;
        assert_eq!(duration(ms(0)), "0.0 s");
        assert_eq!(duration(ms(420)), "0.4 s");
        assert_eq!(duration(ms(59_900)), "59.9 s");
        assert_eq!(duration(ms(59_960)), "1 min 00 s");
        assert_eq!(duration(ms(125_400)), "2 min 05 s");
        assert_eq!(duration(ms(3_780_000)), "1 h 03 min");
    }

    #[test]
    fn memory_reads_in_mb_or_gb() {
        assert_eq!(bytes(512 << 20), "512 MB");
        assert_eq!(bytes(3 << 29), "1.5 GB");
        assert_eq!(bytes(8 << 30), "8.0 GB");
        assert_eq!(bytes(300 << 10), "0.3 MB");
    }
}
