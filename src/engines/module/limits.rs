//! The limits an `AdmissionModule` sets, in the notations Kubernetes users know: `timeout`
//! as a Go duration (`500ms`, `2s`, `1m30s`), `memoryLimit` as a resource quantity (`64Mi`,
//! `128M`, `67108864`).

use std::time::Duration;

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);
pub const DEFAULT_MEMORY_LIMIT: u64 = 64 * 1024 * 1024;
/// A 32-bit WebAssembly memory cannot grow past 4 GiB.
pub const MAX_MEMORY_LIMIT: u64 = 4 * 1024 * 1024 * 1024;

/// The limits of one module call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub timeout: Duration,
    pub memory: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            timeout: DEFAULT_TIMEOUT,
            memory: DEFAULT_MEMORY_LIMIT,
        }
    }
}

/// Go's `time.ParseDuration`, for durations that are not negative.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    match kadmit_go::time::parse_duration(text) {
        Some(nanos) if nanos >= 0 => Ok(Duration::from_nanos(nanos.unsigned_abs())),
        _ => Err(format!(
            "invalid duration {text:?} (examples: 500ms, 2s, 1m30s)"
        )),
    }
}

/// A Kubernetes resource quantity as a whole number of bytes, rounded up like
/// `Quantity.Value()`: `64Mi`, `1Gi`, `500M`, `1e6`, `67108864`.
pub fn parse_quantity(text: &str) -> Result<u64, String> {
    let invalid = || format!("invalid quantity {text:?} (examples: 64Mi, 512Mi, 1Gi)");
    let number_len = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(number_len);
    if number.is_empty() || number == "." || number.matches('.').count() > 1 {
        return Err(invalid());
    }
    let multiplier: f64 = match suffix {
        "" => 1.0,
        "Ki" => 1024.0,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        exponent if exponent.starts_with(['e', 'E']) => {
            let power: i32 = exponent[1..].parse().map_err(|_| invalid())?;
            10f64.powi(power)
        }
        _ => return Err(invalid()),
    };
    let value: f64 = number.parse().map_err(|_| invalid())?;
    let bytes = (value * multiplier).ceil();
    if !bytes.is_finite() || bytes > u64::MAX as f64 {
        return Err(invalid());
    }
    Ok(bytes as u64)
}

/// `64Mi` for 67108864: the largest binary unit that divides the value, for messages.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["Gi", "Mi", "Ki", ""];
    for (i, unit) in UNITS.iter().enumerate() {
        let size = 1u64 << (10 * (3 - i));
        if bytes >= size && bytes.is_multiple_of(size) {
            return format!("{}{unit}", bytes / size);
        }
    }
    bytes.to_string()
}

/// `1s`, `500ms`, `1.5s`: Go's `Duration.String()` for the durations users write.
pub fn format_duration(duration: Duration) -> String {
    let nanos = duration.as_nanos();
    if nanos == 0 {
        "0s".into()
    } else if nanos.is_multiple_of(1_000_000_000) {
        format!("{}s", nanos / 1_000_000_000)
    } else if nanos >= 1_000_000_000 {
        format!("{}s", duration.as_secs_f64())
    } else if nanos.is_multiple_of(1_000_000) {
        format!("{}ms", nanos / 1_000_000)
    } else if nanos.is_multiple_of(1_000) {
        format!("{}µs", nanos / 1_000)
    } else {
        format!("{nanos}ns")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_go() {
        assert_eq!(parse_duration("1s"), Ok(Duration::from_secs(1)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("250us"), Ok(Duration::from_micros(250)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        for bad in ["", "1", "s", "1x", "-1s", "1..2s", "1s2", "ms"] {
            assert!(parse_duration(bad).is_err(), "{bad:?} should not parse");
        }
    }

    #[test]
    fn quantities_read_like_kubernetes() {
        assert_eq!(parse_quantity("64Mi"), Ok(64 << 20));
        assert_eq!(parse_quantity("1Gi"), Ok(1 << 30));
        assert_eq!(parse_quantity("500M"), Ok(500_000_000));
        assert_eq!(parse_quantity("1e6"), Ok(1_000_000));
        assert_eq!(parse_quantity("67108864"), Ok(67_108_864));
        assert_eq!(parse_quantity("1.5Ki"), Ok(1536));
        assert_eq!(parse_quantity("1500m"), Ok(2));
        for bad in ["", "Mi", "64 Mi", "64mi", "-1", "1.2.3", "1Zi"] {
            assert!(parse_quantity(bad).is_err(), "{bad:?} should not parse");
        }
    }

    #[test]
    fn formats_are_what_users_wrote() {
        assert_eq!(format_bytes(64 << 20), "64Mi");
        assert_eq!(format_bytes(1 << 30), "1Gi");
        assert_eq!(format_bytes(1000), "1000");
        assert_eq!(format_duration(Duration::from_secs(1)), "1s");
        assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
    }
}
