//! Timestamps and durations built through the CEL standard library's own constructors, so
//! they are the values `timestamp()` and `duration()` make; plus the Go syntax checks that
//! Kubernetes applies to literal arguments of those functions.

use super::super::convert::duration_from_nanos;
use super::super::env::call_global;
use cel::common::types::CelString;
use cel::common::value::Val;

/// `timestamp(s)` for an RFC 3339 string.
pub fn timestamp_from_rfc3339(s: &str) -> Option<Box<dyn Val>> {
    call_global("timestamp", vec![Box::new(CelString::from(s.to_owned()))]).ok()
}

/// A duration in Go's `time.ParseDuration` syntax, or strfmt's `<n><unit>` with days and
/// weeks.
pub fn duration_from_go(s: &str) -> Option<Box<dyn Val>> {
    if let Some(ns) = kadmit_go::time::parse_duration(s) {
        return duration_from_nanos(ns);
    }
    let s = s.trim();
    let digits = s.chars().take_while(char::is_ascii_digit).count();
    let n: i64 = s[..digits].parse().ok()?;
    let hours = match s[digits..].trim() {
        "d" | "day" | "days" => 24,
        "w" | "wk" | "week" | "weeks" => 24 * 7,
        _ => return None,
    };
    let total = n.checked_mul(hours)?;
    call_global(
        "duration",
        vec![Box::new(CelString::from(format!("{total}h")))],
    )
    .ok()
}

/// Whether `s` is accepted by Go's `time.ParseDuration`.
pub fn is_go_duration(s: &str) -> bool {
    kadmit_go::time::parse_duration(s).is_some()
}

#[cfg(test)]
mod tests {
    use super::is_go_duration;

    #[test]
    fn go_duration_syntax() {
        assert!(is_go_duration("1h2m3s4ms"));
        assert!(is_go_duration("3723.004s"));
        assert!(is_go_duration("-1.5h"));
        assert!(!is_go_duration("1"));
        assert!(!is_go_duration("1d"));
        assert!(!is_go_duration("1nns"));
        assert!(!is_go_duration("9999999999999h"), "overflows");
    }
}
