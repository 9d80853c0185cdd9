//! `time.ParseDuration`, shared by the CRD `duration` format, CEL `duration()` literals,
//! Sprig's duration functions and admission module timeouts.

/// Go's `time.ParseDuration`: the duration in nanoseconds, or `None` where Go returns an
/// error. `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with Go's units, or `0`; no overflow past
/// 2^63 nanoseconds; a fraction adds `float64(f) * (float64(unit) / scale)` as Go does.
pub fn parse_duration(s: &str) -> Option<i64> {
    let (neg, mut s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if s == "0" {
        return Some(0);
    }
    if s.is_empty() {
        return None;
    }
    const LIMIT: u64 = 1 << 63;
    let mut total: u64 = 0;
    while !s.is_empty() {
        let b = s.as_bytes();
        if !(b[0] == b'.' || b[0].is_ascii_digit()) {
            return None;
        }
        let int_len = b.iter().take_while(|c| c.is_ascii_digit()).count();
        let mut v = leading_int(&b[..int_len])?;
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
            return None;
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
            _ => return None,
        };
        s = &s[unit_len..];
        if v > LIMIT / unit {
            return None;
        }
        v *= unit;
        if frac > 0 {
            v += (frac as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return None;
            }
        }
        total += v;
        if total > LIMIT {
            return None;
        }
    }
    if neg {
        return Some((-i128::from(total)) as i64);
    }
    i64::try_from(total).ok()
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

#[cfg(test)]
mod tests {
    use super::parse_duration;

    #[test]
    fn durations_parse_like_go() {
        assert_eq!(parse_duration("1h30m"), Some(5_400_000_000_000));
        assert_eq!(parse_duration("1.5s"), Some(1_500_000_000));
        assert_eq!(parse_duration("4.35s"), Some(4_350_000_000));
        assert_eq!(parse_duration("-1m"), Some(-60_000_000_000));
        assert_eq!(parse_duration("+0"), Some(0));
        assert_eq!(parse_duration("-2562047h47m16.854775808s"), Some(i64::MIN));
        assert_eq!(parse_duration("2562047h47m16.854775808s"), None);
        for bad in ["", "1", "x", ".s", "1..2s", "1s2", "ms", "1d"] {
            assert_eq!(parse_duration(bad), None, "{bad:?}");
        }
    }
}
