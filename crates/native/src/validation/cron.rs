//! robfig/cron v3's `ParseStandard` (minute hour day-of-month month day-of-week, or a
//! `@` descriptor, optionally after `TZ=`/`CRON_TZ=`), which `validateScheduleFormat`
//! calls; `Err` carries the parser's error text exactly.

struct Bounds {
    min: u64,
    max: u64,
    names: &'static [(&'static str, u64)],
}

const MONTHS: &[(&str, u64)] = &[
    ("jan", 1),
    ("feb", 2),
    ("mar", 3),
    ("apr", 4),
    ("may", 5),
    ("jun", 6),
    ("jul", 7),
    ("aug", 8),
    ("sep", 9),
    ("oct", 10),
    ("nov", 11),
    ("dec", 12),
];
const DAYS: &[(&str, u64)] = &[
    ("sun", 0),
    ("mon", 1),
    ("tue", 2),
    ("wed", 3),
    ("thu", 4),
    ("fri", 5),
    ("sat", 6),
];

const FIELDS: [Bounds; 5] = [
    Bounds {
        min: 0,
        max: 59,
        names: &[],
    },
    Bounds {
        min: 0,
        max: 23,
        names: &[],
    },
    Bounds {
        min: 1,
        max: 31,
        names: &[],
    },
    Bounds {
        min: 1,
        max: 12,
        names: MONTHS,
    },
    Bounds {
        min: 0,
        max: 6,
        names: DAYS,
    },
];

pub fn parse_standard(spec: &str) -> Result<(), String> {
    if spec.is_empty() {
        return Err("empty spec string".to_owned());
    }
    let mut spec = spec;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let eq = spec.find('=').unwrap_or(0);
        let Some(sp) = spec.find(' ') else {
            // upstream slices spec[eq+1:-1] and panics; the server reports it as an
            // internal error, kadmit as a bad location.
            return Err(format!(
                "provided bad location {}: unknown time zone",
                &spec[eq + 1..]
            ));
        };
        let loc = &spec[eq + 1..sp];
        if !known_location(loc) {
            return Err(format!(
                "provided bad location {loc}: unknown time zone {loc}"
            ));
        }
        spec = spec[sp..].trim();
    }
    if spec.starts_with('@') {
        return parse_descriptor(spec);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!(
            "expected exactly 5 fields, found {}: [{}]",
            fields.len(),
            fields.join(" ")
        ));
    }
    for (f, b) in fields.iter().zip(FIELDS.iter()) {
        for expr in f.split(',').filter(|e| !e.is_empty()) {
            get_range(expr, b)?;
        }
    }
    Ok(())
}

/// Without a time zone database kadmit accepts every name shaped like a zone name.
fn known_location(loc: &str) -> bool {
    !loc.is_empty()
        && loc
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'_' | b'-' | b'+'))
}

fn parse_descriptor(spec: &str) -> Result<(), String> {
    match spec {
        "@yearly" | "@annually" | "@monthly" | "@weekly" | "@daily" | "@midnight" | "@hourly" => {
            Ok(())
        }
        _ => {
            if let Some(d) = spec.strip_prefix("@every ") {
                if kadmit_go::time::parse_duration(d).is_none() {
                    return Err(format!(
                        "failed to parse duration {spec}: time: invalid duration {}",
                        kadmit_go::strconv::quote(d, false)
                    ));
                }
                return Ok(());
            }
            Err(format!("unrecognized descriptor: {spec}"))
        }
    }
}

fn get_range(expr: &str, b: &Bounds) -> Result<(), String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_high: Vec<&str> = range_and_step[0].split('-').collect();
    let single = low_high.len() == 1;
    let (start, mut end);
    if low_high[0] == "*" || low_high[0] == "?" {
        start = b.min;
        end = b.max;
    } else {
        start = parse_int_or_name(low_high[0], b)?;
        end = match low_high.len() {
            1 => start,
            2 => parse_int_or_name(low_high[1], b)?,
            _ => return Err(format!("too many hyphens: {expr}")),
        };
    }
    let step = match range_and_step.len() {
        1 => 1,
        2 => {
            let step = must_parse_int(range_and_step[1])?;
            if single {
                end = b.max;
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr}")),
    };
    if start < b.min {
        return Err(format!(
            "beginning of range ({start}) below minimum ({}): {expr}",
            b.min
        ));
    }
    if end > b.max {
        return Err(format!(
            "end of range ({end}) above maximum ({}): {expr}",
            b.max
        ));
    }
    if start > end {
        return Err(format!(
            "beginning of range ({start}) beyond end of range ({end}): {expr}"
        ));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    Ok(())
}

fn parse_int_or_name(expr: &str, b: &Bounds) -> Result<u64, String> {
    let lower = expr.to_lowercase();
    if let Some((_, n)) = b.names.iter().find(|(name, _)| *name == lower) {
        return Ok(*n);
    }
    must_parse_int(expr)
}

/// `mustParseInt`: `strconv.Atoi`, then non-negative.
fn must_parse_int(expr: &str) -> Result<u64, String> {
    match kadmit_go::strconv::atoi(expr) {
        Some(n) if n < 0 => Err(format!("negative number ({n}) not allowed: {expr}")),
        Some(n) => Ok(n as u64),
        None => {
            let digits = expr.strip_prefix(['+', '-']).unwrap_or(expr);
            let reason = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                "value out of range"
            } else {
                "invalid syntax"
            };
            Err(format!(
                "failed to parse int from {expr}: strconv.Atoi: parsing {}: {reason}",
                kadmit_go::strconv::quote(expr, false)
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_standard;

    #[test]
    fn robfig_texts() {
        assert!(parse_standard("*/5 * * * *").is_ok());
        assert!(parse_standard("0 0 * jan-mar MON-FRI").is_ok());
        assert!(parse_standard("@hourly").is_ok());
        assert!(parse_standard("@every 1h30m").is_ok());
        assert!(parse_standard("TZ=UTC 0 * * * *").is_ok());
        assert_eq!(
            parse_standard("* * *").unwrap_err(),
            "expected exactly 5 fields, found 3: [* * *]"
        );
        assert_eq!(
            parse_standard("61 * * * *").unwrap_err(),
            "end of range (61) above maximum (59): 61"
        );
        assert_eq!(
            parse_standard("* * 0 * *").unwrap_err(),
            "beginning of range (0) below minimum (1): 0"
        );
        assert_eq!(
            parse_standard("x * * * *").unwrap_err(),
            "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"
        );
        assert_eq!(
            parse_standard("5-1 * * * *").unwrap_err(),
            "beginning of range (5) beyond end of range (1): 5-1"
        );
        assert_eq!(
            parse_standard("*/0 * * * *").unwrap_err(),
            "step of range should be a positive number: */0"
        );
        assert_eq!(
            parse_standard("@fortnightly").unwrap_err(),
            "unrecognized descriptor: @fortnightly"
        );
        assert_eq!(parse_standard("").unwrap_err(), "empty spec string");
    }
}
