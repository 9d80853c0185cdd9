//! The `date`, `date-time` and `duration` formats as kube-openapi's `strfmt` checks them.

use regex::Regex;
use std::sync::OnceLock;

/// Go's `time.Parse("2006-01-02", s)`: four-digit year, two-digit month and day, the
/// day existing in that month.
pub(super) fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| {
        b[r.clone()]
            .iter()
            .all(u8::is_ascii_digit)
            .then(|| b[r].iter().fold(0u32, |n, &d| n * 10 + u32::from(d - b'0')))
    };
    let (Some(year), Some(month), Some(day)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
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
    go_parse_duration(s) || scala_duration(s)
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

/// Go's `time.ParseDuration` accepts `s`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with Go's
/// units, or `0`, and no overflow past 2^63 nanoseconds.
fn go_parse_duration(s: &str) -> bool {
    let (neg, mut s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if s == "0" {
        return true;
    }
    if s.is_empty() {
        return false;
    }
    const LIMIT: u64 = 1 << 63;
    let mut total: u64 = 0;
    while !s.is_empty() {
        let b = s.as_bytes();
        if !(b[0] == b'.' || b[0].is_ascii_digit()) {
            return false;
        }
        let int_len = b.iter().take_while(|c| c.is_ascii_digit()).count();
        let Some(mut v) = leading_int(&b[..int_len]) else {
            return false;
        };
        s = &s[int_len..];
        let (mut frac, mut scale, mut frac_len) = (0u64, 1f64, 0);
        if let Some(rest) = s.strip_prefix('.') {
            frac_len = rest.bytes().take_while(u8::is_ascii_digit).count();
            let mut overflow = false;
            for d in rest[..frac_len].bytes() {
                if overflow || frac > (LIMIT - 1) / 10 {
                    overflow = true;
                    continue;
                }
                frac = frac * 10 + u64::from(d - b'0');
                scale *= 10.0;
            }
            s = &rest[frac_len..];
        }
        if int_len == 0 && frac_len == 0 {
            return false;
        }
        let unit_len = s
            .bytes()
            .take_while(|c| *c != b'.' && !c.is_ascii_digit())
            .count();
        let unit: u64 = match &s[..unit_len] {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return false,
        };
        s = &s[unit_len..];
        if v > LIMIT / unit {
            return false;
        }
        v *= unit;
        if frac > 0 {
            v += (frac as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return false;
            }
        }
        total += v;
        if total > LIMIT {
            return false;
        }
    }
    neg || total < LIMIT
}

/// Go's `leadingInt` on a run of digits: `None` past 2^63.
fn leading_int(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0u64, |x, &d| {
        if x > (1 << 63) / 10 {
            return None;
        }
        let x = x * 10 + u64::from(d - b'0');
        (x <= 1 << 63).then_some(x)
    })
}
