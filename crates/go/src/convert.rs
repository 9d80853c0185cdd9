//! Go's conversions from float64 to integer types as they behave on amd64, where a value
//! that does not fit (or NaN) gives the "integer indefinite" `math.MinInt64` instead of
//! saturating as Rust's `as` does.

/// 2^63, the first float64 past `i64::MAX`.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;

/// Go's `int64(f)` on amd64: truncation, and `math.MinInt64` for NaN and anything out of
/// range.
pub fn float_to_int(f: f64) -> i64 {
    if (-TWO_63..TWO_63).contains(&f) {
        f as i64
    } else {
        i64::MIN
    }
}

/// Go's `uint64(f)` on amd64: negative values wrap through `int64`, values from 2^63
/// up to 2^64 convert exactly, anything else gives 2^63.
pub fn float_to_uint(f: f64) -> u64 {
    if f < TWO_63 {
        float_to_int(f) as u64
    } else if f < 2.0 * TWO_63 {
        (float_to_int(f - TWO_63) as u64) ^ (1 << 63)
    } else {
        1 << 63
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_to_int_like_amd64() {
        assert_eq!(float_to_int(-2.7), -2);
        assert_eq!(float_to_int(2.7), 2);
        assert_eq!(float_to_int(-TWO_63), i64::MIN);
        assert_eq!(float_to_int(9.2e18), 9_200_000_000_000_000_000);
        for indefinite in [f64::NAN, TWO_63, -1e19, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(float_to_int(indefinite), i64::MIN, "{indefinite}");
        }
    }

    #[test]
    fn float_to_uint_like_amd64() {
        assert_eq!(float_to_uint(-1.0), u64::MAX);
        assert_eq!(float_to_uint(3.9), 3);
        assert_eq!(float_to_uint(TWO_63), 1 << 63);
        assert_eq!(float_to_uint(1.5 * TWO_63), 3 << 62);
        assert_eq!(float_to_uint(2.0 * TWO_63), 1 << 63);
        assert_eq!(float_to_uint(f64::NAN), 1 << 63);
    }
}
