//! The `date`, `date-time` and `duration` formats as kube-openapi's `strfmt` checks them.

use regex::Regex;
use std::sync::OnceLock;

/// `strfmt.IsDate`: Go's `time.Parse("2006-01-02", s)` succeeds.
pub(super) fn is_date(s: &str) -> bool {
    kadmit_go::time::parse(kadmit_go::time::DATE_ONLY, s).is_ok()
}

/// `strfmt.IsDateTime`: lower-cased and split at every `t`; the first part is a date,
/// the second a time of day with a zone (`.` before the fraction matches any character,
/// later parts are ignored).
pub(super) fn is_date_time(s: &str) -> bool {
    static TIME: OnceLock<Regex> = OnceLock::new();
    if s.len() < 4 {
        return false;
    }
    let lower = s.to_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    let re = TIME.get_or_init(|| {
        Regex::new(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$")
            .expect("the time regex is valid")
    });
    is_date(date)
        && re
            .captures(time)
            .is_some_and(|c| &c[1] <= "23" && &c[2] <= "59" && &c[3] <= "59")
}

/// `strfmt.ParseDuration`: Go's `time.ParseDuration`, else any `<int><unit>` pieces
/// with Scala-style unit names found anywhere in the text.
pub(super) fn is_duration(s: &str) -> bool {
    kadmit_go::time::parse_duration(s).is_some() || scala_duration(s)
}

fn scala_duration(s: &str) -> bool {
    static PIECE: OnceLock<Regex> = OnceLock::new();
    const UNITS: [&[&str]; 8] = [
        &["ns", "nano"],
        &["us", "µs", "micro"],
        &["ms", "milli"],
        &["s", "sec"],
        &["m", "min"],
        &["h", "hr", "hour"],
        &["d", "day"],
        &["w", "wk", "week"],
    ];
    let re = PIECE.get_or_init(|| {
        Regex::new(r"(((?:-[\t\n\f\r ]?)?[0-9]+)[\t\n\f\r ]*([A-Za-zµ]+))")
            .expect("the duration regex is valid")
    });
    let mut matched = false;
    for piece in re.captures_iter(s) {
        let number = piece[2].strip_prefix('-').unwrap_or(&piece[2]);
        if number.trim_start().parse::<i64>().is_err() {
            return false;
        }
        let unit = piece[3].to_lowercase();
        matched |= UNITS.iter().any(|variants| {
            let last = variants.len() - 1;
            variants
                .iter()
                .enumerate()
                .any(|(i, v)| (i == last && unit.starts_with(v)) || unit.eq_ignore_ascii_case(v))
        });
    }
    matched
}
