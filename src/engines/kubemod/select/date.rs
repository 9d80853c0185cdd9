//! `date(s)`: KubeMod tries a fixed list of Go time layouts with `time.ParseInLocation`
//! in the local time zone. kadmit takes UTC as the local zone (no environment), and
//! prints the result the way Go's `Time.String()` does, which is what comparisons of two
//! dates end up comparing (`<` on two `time.Time` compares their `%v` text).

/// A parsed `time.Time`: the instant, its UTC offset and its zone name (empty for an
/// unnamed fixed offset). Equality stands in for `reflect.DeepEqual`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoTime {
    pub unix: i64,
    pub nanos: u32,
    pub offset: i32,
    pub zone: String,
}

/// The layouts of KubeMod's `dateGValFunction`, in its order.
const LAYOUTS: [&str; 14] = [
    "Mon Jan _2 15:04:05 2006",
    "Mon Jan _2 15:04:05 MST 2006",
    "Mon Jan 02 15:04:05 -0700 2006",
    "3:04PM",
    "2006-01-02T15:04:05Z07:00",
    "2006-01-02T15:04:05.999999999Z07:00",
    "2006-01-02",
    "2006-01-02 15:04",
    "2006-01-02 15:04:05",
    "2006-01-02 15:04:05-07:00",
    "2006-01-02T15Z0700",
    "2006-01-02T15:04Z0700",
    "2006-01-02T15:04:05Z0700",
    "2006-01-02T15:04:05.999999999Z0700",
];

/// The layout elements those layouts use, longest first where one is a prefix of another.
const ELEMENTS: [&str; 17] = [
    ".999999999",
    "Z07:00",
    "Z0700",
    "-07:00",
    "-0700",
    "2006",
    "Mon",
    "Jan",
    "MST",
    "_2",
    "01",
    "02",
    "15",
    "04",
    "05",
    "PM",
    "3",
];

pub(crate) fn parse_date(s: &str) -> Result<GoTime, String> {
    LAYOUTS
        .iter()
        .find_map(|layout| parse_layout(layout, s))
        .ok_or_else(|| format!("date() could not parse {s}"))
}

#[derive(Default)]
struct Fields {
    year: i64,
    month: Option<i64>,
    day: Option<i64>,
    hour: i64,
    minute: i64,
    second: i64,
    nanos: u32,
    pm: Option<bool>,
    offset: Option<i32>,
    utc: bool,
    zone: Option<String>,
}

fn parse_layout(layout: &str, value: &str) -> Option<GoTime> {
    let mut f = Fields::default();
    let mut layout = layout;
    let mut value = value;
    while !layout.is_empty() {
        let Some(element) = ELEMENTS.iter().find(|e| layout.starts_with(**e)) else {
            let literal_len = layout.chars().next()?.len_utf8();
            value = skip(value, &layout[..literal_len])?;
            layout = &layout[literal_len..];
            continue;
        };
        layout = &layout[element.len()..];
        value = parse_element(element, value, layout, &mut f)?;
    }
    if !value.is_empty() {
        return None;
    }
    finish(f)
}

fn parse_element<'v>(element: &str, value: &'v str, rest: &str, f: &mut Fields) -> Option<&'v str> {
    Some(match element {
        "2006" => {
            let digits = value.get(..4)?;
            f.year = digits
                .parse()
                .ok()
                .filter(|_| digits.bytes().all(|b| b.is_ascii_digit()))?;
            &value[4..]
        }
        "Mon" => lookup(value, &DAYS)?.1,
        "Jan" => {
            let (i, tail) = lookup(value, &MONTHS)?;
            f.month = Some(i as i64 + 1);
            tail
        }
        "01" => {
            let (n, tail) = number(value, true)?;
            f.month = Some((1..=12).contains(&n).then_some(n)?);
            tail
        }
        "_2" | "02" => {
            let value = if element == "_2" {
                value.strip_prefix(' ').unwrap_or(value)
            } else {
                value
            };
            let (n, tail) = number(value, element == "02")?;
            f.day = Some(n);
            tail
        }
        "15" | "3" => {
            let (n, tail) = number(value, false)?;
            if n >= 24 || (element == "3" && n > 12) {
                return None;
            }
            f.hour = n;
            tail
        }
        "04" => {
            let (n, tail) = number(value, true)?;
            f.minute = (n < 60).then_some(n)?;
            tail
        }
        "05" => {
            let (n, mut tail) = number(value, true)?;
            f.second = (n < 60).then_some(n)?;
            // Go accepts a fraction after the seconds even when the layout has none.
            if !rest.starts_with(".999999999") {
                tail = fraction(tail, f)?;
            }
            tail
        }
        ".999999999" => fraction(value, f)?,
        "PM" => {
            let p = value.get(..2)?;
            f.pm = Some(match p {
                "PM" => true,
                "AM" => false,
                _ => return None,
            });
            &value[2..]
        }
        "MST" => {
            let n = value.bytes().take_while(u8::is_ascii_uppercase).count();
            if !(3..=5).contains(&n) {
                return None;
            }
            f.zone = Some(value[..n].to_string());
            &value[n..]
        }
        _ => {
            // -0700, -07:00, Z0700, Z07:00
            if element.starts_with('Z') && value.starts_with('Z') {
                f.utc = true;
                return Some(&value[1..]);
            }
            let colon = element.contains(':');
            let len = if colon { 6 } else { 5 };
            let text = value.get(..len)?;
            let sign = match text.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (hh, mm) = if colon {
                (
                    text.get(1..3)?,
                    text.get(4..6).filter(|_| &text[3..4] == ":")?,
                )
            } else {
                (text.get(1..3)?, text.get(3..5)?)
            };
            let all_digits = hh.bytes().chain(mm.bytes()).all(|b| b.is_ascii_digit());
            let (h, m): (i32, i32) = (hh.parse().ok()?, mm.parse().ok()?);
            if !all_digits {
                return None;
            }
            f.offset = Some(sign * (h * 3600 + m * 60));
            &value[len..]
        }
    })
}

fn fraction<'v>(value: &'v str, f: &mut Fields) -> Option<&'v str> {
    let bytes = value.as_bytes();
    if bytes.len() < 2 || !matches!(bytes[0], b'.' | b',') || !bytes[1].is_ascii_digit() {
        return Some(value);
    }
    let n = 1 + value[1..].bytes().take_while(u8::is_ascii_digit).count();
    let digits = &value[1..n];
    let mut nanos = 0u64;
    for (i, d) in digits.bytes().enumerate().take(9) {
        nanos += u64::from(d - b'0') * 10u64.pow(8 - i as u32);
    }
    f.nanos = u32::try_from(nanos).ok()?;
    Some(&value[n..])
}

/// Go `getnum`: one or two digits (exactly two when `fixed`).
fn number(value: &str, fixed: bool) -> Option<(i64, &str)> {
    let b = value.as_bytes();
    if !b.first()?.is_ascii_digit() {
        return None;
    }
    if !b.get(1).is_some_and(u8::is_ascii_digit) {
        return (!fixed).then(|| (i64::from(b[0] - b'0'), &value[1..]));
    }
    Some((
        i64::from(b[0] - b'0') * 10 + i64::from(b[1] - b'0'),
        &value[2..],
    ))
}

const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Go `lookup` of a three-letter name, case-insensitively.
fn lookup<'v>(value: &'v str, names: &[&str]) -> Option<(usize, &'v str)> {
    let head = value.get(..3)?;
    let i = names
        .iter()
        .position(|n| n[..3].eq_ignore_ascii_case(head))?;
    Some((i, &value[3..]))
}

/// Go `skip`: a literal from the layout; a space matches any run of spaces.
fn skip<'v>(value: &'v str, literal: &str) -> Option<&'v str> {
    if literal == " " {
        if value.starts_with(|c| c != ' ') {
            return None;
        }
        return Some(value.trim_start_matches(' '));
    }
    value.strip_prefix(literal)
}

fn finish(f: Fields) -> Option<GoTime> {
    let month = f.month.unwrap_or(1);
    let day = f.day.unwrap_or(1);
    let mut hour = f.hour;
    match f.pm {
        Some(true) if hour < 12 => hour += 12,
        Some(false) if hour == 12 => hour = 0,
        _ => {}
    }
    if day < 1 || day > days_in_month(f.year, month) {
        return None;
    }
    let local =
        days_from_civil(f.year, month, day) * 86_400 + hour * 3600 + f.minute * 60 + f.second;
    let (offset, zone) = if f.utc {
        (0, "UTC".to_string())
    } else if let Some(offset) = f.offset {
        (
            offset,
            if offset == 0 {
                "UTC".into()
            } else {
                String::new()
            },
        )
    } else if let Some(zone) = f.zone {
        let offset = zone
            .strip_prefix("GMT")
            .and_then(|h| h.parse::<i32>().ok())
            .map_or(0, |h| h * 3600);
        (offset, zone)
    } else {
        (0, "UTC".to_string())
    };
    Some(GoTime {
        unix: local - i64::from(offset),
        nanos: f.nanos,
        offset,
        zone,
    })
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

impl GoTime {
    /// Go `Time.String()`: `2006-01-02 15:04:05.999999999 -0700 MST`.
    pub fn to_go_string(&self) -> String {
        let local = self.unix + i64::from(self.offset);
        let (year, month, day) = civil_from_days(local.div_euclid(86_400));
        let secs = local.rem_euclid(86_400);
        let mut out = format!(
            "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
            secs / 3600,
            secs % 3600 / 60,
            secs % 60
        );
        if self.nanos > 0 {
            let frac = format!("{:09}", self.nanos);
            out.push('.');
            out.push_str(frac.trim_end_matches('0'));
        }
        let sign = if self.offset < 0 { '-' } else { '+' };
        let minutes = self.offset.abs() / 60;
        let offset = format!("{sign}{:02}{:02}", minutes / 60, minutes % 60);
        let zone = if self.zone.is_empty() {
            offset.clone()
        } else {
            self.zone.clone()
        };
        format!("{out} {offset} {zone}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(s: &str) -> String {
        parse_date(s)
            .map(|t| t.to_go_string())
            .unwrap_or_else(|e| e)
    }

    #[test]
    fn parses_the_kubemod_layouts() {
        assert_eq!(show("2023-01-02"), "2023-01-02 00:00:00 +0000 UTC");
        assert_eq!(
            show("2023-01-02T03:04:05Z"),
            "2023-01-02 03:04:05 +0000 UTC"
        );
        assert_eq!(
            show("2023-01-02T03:04:05.25+02:00"),
            "2023-01-02 03:04:05.25 +0200 +0200"
        );
        assert_eq!(show("2023-01-02 03:04:05"), "2023-01-02 03:04:05 +0000 UTC");
        assert_eq!(show("2023-01-02T03Z"), "2023-01-02 03:00:00 +0000 UTC");
        assert_eq!(
            show("Mon Jan  2 15:04:05 2006"),
            "2006-01-02 15:04:05 +0000 UTC"
        );
        assert_eq!(
            show("Mon Jan 2 15:04:05 MST 2006"),
            "2006-01-02 15:04:05 +0000 MST"
        );
        assert_eq!(show("3:04PM"), "0000-01-01 15:04:00 +0000 UTC");
        assert_eq!(show("1969-12-31 23:59"), "1969-12-31 23:59:00 +0000 UTC");
        assert_eq!(show("2023-02-30"), "date() could not parse 2023-02-30");
        assert_eq!(show("yesterday"), "date() could not parse yesterday");
    }
}
