//! `time.Parse`: a value read against a layout, with Go's `*time.ParseError` texts.
//! Value and layout are walked as bytes, as Go does.

use super::layout::{next_std_chunk, Std};
use super::value::{days_in, is_leap, Time};
use std::fmt;

/// `*time.ParseError`, as its `Error()` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(String);

impl ParseError {
    /// `cannot parse "<value_elem>" as "<layout_elem>"`, or `message` when there is one.
    fn new(
        layout: &[u8],
        value: &[u8],
        layout_elem: &[u8],
        value_elem: &[u8],
        message: &str,
    ) -> Self {
        if message.is_empty() {
            ParseError(format!(
                "parsing time {} as {}: cannot parse {} as {}",
                quote(value),
                quote(layout),
                quote(value_elem),
                quote(layout_elem)
            ))
        } else {
            ParseError(format!("parsing time {}{message}", quote(value)))
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

/// The `time` package's own `quote`: bytes outside printable ASCII become `\xNN`.
fn quote(s: &[u8]) -> String {
    let mut out = String::from("\"");
    for &b in s {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(char::from(b));
            }
            0x20..=0x7f => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('"');
    out
}

/// A field that does not parse (Go's `errBad`).
struct Bad;

/// Go's `time.Parse(layout, value)`, with UTC as the local zone.
pub fn parse(layout: &str, value: &str) -> Result<Time, ParseError> {
    let (alayout, avalue) = (layout.as_bytes(), value.as_bytes());
    let (mut layout, mut value) = (alayout, avalue);
    let mut range_err = "";
    let (mut am_set, mut pm_set) = (false, false);
    let (mut year, mut month, mut day, mut yday) = (0i64, -1i64, -1i64, -1i64);
    let (mut hour, mut min, mut sec, mut nsec) = (0i64, 0i64, 0i64, 0i64);
    let mut utc = false;
    let mut zone_offset: Option<i64> = None;
    let mut zone_name: &[u8] = b"";

    loop {
        let (prefix, std, suffix) = next_std_chunk(layout);
        let std_str = &layout[prefix.len()..layout.len() - suffix.len()];
        value =
            skip(value, prefix).map_err(|_| ParseError::new(alayout, avalue, prefix, value, ""))?;
        let Some(std) = std else {
            if !value.is_empty() {
                let message = format!(": extra text: {}", quote(value));
                return Err(ParseError::new(alayout, avalue, b"", value, &message));
            }
            break;
        };
        layout = suffix;
        let hold = value;
        let parsed: Result<(), Bad> = (|| {
            match std {
                Std::Year => {
                    let p = value.get(..2).ok_or(Bad)?;
                    value = &value[2..];
                    year = atoi(p)?;
                    year += if year >= 69 { 1900 } else { 2000 };
                }
                Std::LongYear => {
                    if value.len() < 4 || !value[0].is_ascii_digit() {
                        return Err(Bad);
                    }
                    let p = &value[..4];
                    value = &value[4..];
                    year = atoi(p)?;
                }
                Std::Month | Std::LongMonth => {
                    let names = if std == Std::Month {
                        &SHORT_MONTHS
                    } else {
                        &LONG_MONTHS
                    };
                    let (i, rest) = lookup(names, value)?;
                    month = i as i64 + 1;
                    value = rest;
                }
                Std::NumMonth | Std::ZeroMonth => {
                    (month, value, range_err) =
                        field(value, std == Std::ZeroMonth, 1..=12, "month")?;
                }
                Std::WeekDay | Std::LongWeekDay => {
                    // Checked for syntax only.
                    let names = if std == Std::WeekDay {
                        &SHORT_DAYS
                    } else {
                        &LONG_DAYS
                    };
                    value = lookup(names, value)?.1;
                }
                Std::Day | Std::UnderDay | Std::ZeroDay => {
                    if std == Std::UnderDay && value.first() == Some(&b' ') {
                        value = &value[1..];
                    }
                    let (d, rest) = getnum(value, std == Std::ZeroDay)?;
                    day = d;
                    value = rest;
                }
                Std::UnderYearDay | Std::ZeroYearDay => {
                    for _ in 0..2 {
                        if std == Std::UnderYearDay && value.first() == Some(&b' ') {
                            value = &value[1..];
                        }
                    }
                    let (d, rest) = getnum3(value, std == Std::ZeroYearDay)?;
                    yday = d;
                    value = rest;
                }
                Std::Hour => {
                    (hour, value, range_err) = field(value, false, 0..=23, "hour")?;
                }
                Std::Hour12 | Std::ZeroHour12 => {
                    (hour, value, range_err) =
                        field(value, std == Std::ZeroHour12, 0..=12, "hour")?;
                }
                Std::Minute | Std::ZeroMinute => {
                    (min, value, range_err) =
                        field(value, std == Std::ZeroMinute, 0..=59, "minute")?;
                }
                Std::Second | Std::ZeroSecond => {
                    (sec, value, range_err) =
                        field(value, std == Std::ZeroSecond, 0..=59, "second")?;
                    if !range_err.is_empty() {
                        return Ok(());
                    }
                    // A fraction the layout does not ask for is read all the same.
                    if value.len() >= 2 && comma_or_period(value[0]) && value[1].is_ascii_digit() {
                        if let (_, Some(Std::FracSecond0(_) | Std::FracSecond9(_)), _) =
                            next_std_chunk(layout)
                        {
                            return Ok(());
                        }
                        let n = 2 + value[2..].iter().take_while(|c| c.is_ascii_digit()).count();
                        (nsec, range_err, value) = parse_nanoseconds(value, n)?;
                    }
                }
                Std::PM | Std::Pm => {
                    let p = value.get(..2).ok_or(Bad)?;
                    value = &value[2..];
                    match (std, p) {
                        (Std::PM, b"PM") | (Std::Pm, b"pm") => pm_set = true,
                        (Std::PM, b"AM") | (Std::Pm, b"am") => am_set = true,
                        _ => return Err(Bad),
                    }
                }
                Std::Iso8601TZ
                | Std::Iso8601ShortTZ
                | Std::Iso8601ColonTZ
                | Std::Iso8601SecondsTZ
                | Std::Iso8601ColonSecondsTZ
                    if value.first() == Some(&b'Z') =>
                {
                    value = &value[1..];
                    utc = true;
                }
                Std::Iso8601TZ
                | Std::Iso8601ShortTZ
                | Std::Iso8601ColonTZ
                | Std::Iso8601SecondsTZ
                | Std::Iso8601ColonSecondsTZ
                | Std::NumTZ
                | Std::NumShortTZ
                | Std::NumColonTZ
                | Std::NumSecondsTZ
                | Std::NumColonSecondsTZ => {
                    let v = value;
                    let (sign, hh, mm, ss, len): (u8, &[u8], &[u8], &[u8], usize) = match std {
                        Std::Iso8601ColonTZ | Std::NumColonTZ => {
                            if v.len() < 6 || v[3] != b':' {
                                return Err(Bad);
                            }
                            (v[0], &v[1..3], &v[4..6], b"00", 6)
                        }
                        Std::Iso8601ShortTZ | Std::NumShortTZ => {
                            if v.len() < 3 {
                                return Err(Bad);
                            }
                            (v[0], &v[1..3], b"00", b"00", 3)
                        }
                        Std::Iso8601ColonSecondsTZ | Std::NumColonSecondsTZ => {
                            if v.len() < 9 || v[3] != b':' || v[6] != b':' {
                                return Err(Bad);
                            }
                            (v[0], &v[1..3], &v[4..6], &v[7..9], 9)
                        }
                        Std::Iso8601SecondsTZ | Std::NumSecondsTZ => {
                            if v.len() < 7 {
                                return Err(Bad);
                            }
                            (v[0], &v[1..3], &v[3..5], &v[5..7], 7)
                        }
                        _ => {
                            if v.len() < 5 {
                                return Err(Bad);
                            }
                            (v[0], &v[1..3], &v[3..5], b"00", 5)
                        }
                    };
                    value = &v[len..];
                    // Each part is read only if the one before it was, and the ranges are
                    // checked before a failure counts.
                    let mut bad = false;
                    let mut part = |digits: &[u8]| match (bad, getnum(digits, true)) {
                        (false, Ok((n, _))) => n,
                        _ => {
                            bad = true;
                            0
                        }
                    };
                    let (hr, mm, ss) = (part(hh), part(mm), part(ss));
                    // Offsets of 24 hours, 60 minutes or 60 seconds are written.
                    if hr > 24 {
                        range_err = "time zone offset hour";
                    }
                    if mm > 60 {
                        range_err = "time zone offset minute";
                    }
                    if ss > 60 {
                        range_err = "time zone offset second";
                    }
                    let offset = (hr * 60 + mm) * 60 + ss;
                    zone_offset = Some(match sign {
                        b'+' => offset,
                        b'-' => -offset,
                        _ => return Err(Bad),
                    });
                    if bad {
                        return Err(Bad);
                    }
                }
                Std::TZ => {
                    if value.starts_with(b"UTC") {
                        utc = true;
                        value = &value[3..];
                        return Ok(());
                    }
                    let n = parse_time_zone(value).ok_or(Bad)?;
                    zone_name = &value[..n];
                    value = &value[n..];
                }
                Std::FracSecond0(digits) => {
                    let n = 1 + digits;
                    if value.len() < n {
                        return Err(Bad);
                    }
                    (nsec, range_err, value) = parse_nanoseconds(value, n)?;
                }
                Std::FracSecond9(_) => {
                    if value.len() < 2 || !comma_or_period(value[0]) || !value[1].is_ascii_digit() {
                        // The fraction is left out.
                        return Ok(());
                    }
                    let n = 1 + value[1..].iter().take_while(|c| c.is_ascii_digit()).count();
                    (nsec, range_err, value) = parse_nanoseconds(value, n)?;
                }
            }
            Ok(())
        })();
        if !range_err.is_empty() {
            let message = format!(": {range_err} out of range");
            return Err(ParseError::new(alayout, avalue, std_str, value, &message));
        }
        if parsed.is_err() {
            return Err(ParseError::new(alayout, avalue, std_str, hold, ""));
        }
    }
    let after = |message: &str| Err(ParseError::new(alayout, avalue, b"", value, message));
    if pm_set && hour < 12 {
        hour += 12;
    } else if am_set && hour == 12 {
        hour = 0;
    }

    if yday >= 0 {
        let (mut m, mut d) = (0, 0);
        if is_leap(year) {
            if yday == 31 + 29 {
                m = 2;
                d = 29;
            } else if yday > 31 + 29 {
                yday -= 1;
            }
        }
        if !(1..=365).contains(&yday) {
            return after(": day-of-year out of range");
        }
        if m == 0 {
            m = (yday - 1) / 31 + 1;
            if days_before(m + 1) < yday {
                m += 1;
            }
            d = yday - days_before(m);
        }
        if month >= 0 && month != m {
            return after(": day-of-year does not match month");
        }
        month = m;
        if day >= 0 && day != d {
            return after(": day-of-year does not match day");
        }
        day = d;
    } else {
        if month < 0 {
            month = 1;
        }
        if day < 0 {
            day = 1;
        }
    }
    if day < 1 || day > days_in(month, year) {
        return after(": day out of range");
    }

    let wall = Time::utc(year, month, day, hour, min, sec, nsec as u32);
    if utc {
        return Ok(wall);
    }
    // Go marks "no offset" with -1, so an offset of -1s is none.
    if let Some(offset) = zone_offset.filter(|&offset| offset != -1) {
        // The local zone (UTC) when the offset is its own, else a fixed zone.
        if offset == 0 && (zone_name.is_empty() || zone_name == b"UTC") {
            return Ok(wall);
        }
        let name = String::from_utf8_lossy(zone_name).into_owned();
        return Ok(wall.in_fixed_zone(name, offset as i32, true));
    }
    if !zone_name.is_empty() {
        // An abbreviation UTC does not know: a zone of that name with offset 0, or the
        // hours of `GMT+h`, without moving the instant.
        let offset = match zone_name.strip_prefix(b"GMT") {
            Some(hours) if !hours.is_empty() => atoi(hours).unwrap_or(0) * 3600,
            _ => 0,
        };
        let name = String::from_utf8_lossy(zone_name).into_owned();
        return Ok(wall.in_fixed_zone(name, offset as i32, false));
    }
    Ok(wall)
}

const SHORT_DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const LONG_DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const SHORT_MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
const LONG_MONTHS: [&str; 12] = [
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

/// `skip`: `prefix` off `value`, a space in the prefix taking any run of spaces.
fn skip<'v>(mut value: &'v [u8], mut prefix: &[u8]) -> Result<&'v [u8], Bad> {
    while let Some(&p) = prefix.first() {
        if p == b' ' {
            if value.first().is_some_and(|&c| c != b' ') {
                return Err(Bad);
            }
            prefix = cut_spaces(prefix);
            value = cut_spaces(value);
            continue;
        }
        if value.first() != Some(&p) {
            return Err(Bad);
        }
        prefix = &prefix[1..];
        value = &value[1..];
    }
    Ok(value)
}

fn cut_spaces(s: &[u8]) -> &[u8] {
    &s[s.iter().take_while(|&&c| c == b' ').count()..]
}

/// `lookup`: the name of `names` `value` starts with, ignoring ASCII case.
fn lookup<'v>(names: &[&str], value: &'v [u8]) -> Result<(usize, &'v [u8]), Bad> {
    for (i, name) in names.iter().enumerate() {
        let name = name.as_bytes();
        if value.len() >= name.len() && same_ignoring_case(&value[..name.len()], name) {
            return Ok((i, &value[name.len()..]));
        }
    }
    Err(Bad)
}

/// Go's `match`: equal bytes, or equal letters but for case.
fn same_ignoring_case(a: &[u8], b: &[u8]) -> bool {
    a.iter().zip(b).all(|(&x, &y)| {
        x == y || {
            let (x, y) = (x | 0x20, y | 0x20);
            x == y && x.is_ascii_lowercase()
        }
    })
}

/// `getnum`: one or two digits, exactly two when `fixed`.
fn getnum(s: &[u8], fixed: bool) -> Result<(i64, &[u8]), Bad> {
    let digit = |i: usize| {
        s.get(i)
            .filter(|c| c.is_ascii_digit())
            .map(|c| i64::from(c - b'0'))
    };
    let first = digit(0).ok_or(Bad)?;
    match digit(1) {
        Some(second) => Ok((first * 10 + second, &s[2..])),
        None if fixed => Err(Bad),
        None => Ok((first, &s[1..])),
    }
}

/// A `getnum` field, with the range error to report if it is not in `range`.
fn field<'v>(
    value: &'v [u8],
    fixed: bool,
    range: std::ops::RangeInclusive<i64>,
    what: &'static str,
) -> Result<(i64, &'v [u8], &'static str), Bad> {
    let (n, rest) = getnum(value, fixed)?;
    Ok((n, rest, if range.contains(&n) { "" } else { what }))
}

/// `getnum3`: one to three digits, exactly three when `fixed`.
fn getnum3(s: &[u8], fixed: bool) -> Result<(i64, &[u8]), Bad> {
    let n = s.iter().take(3).take_while(|c| c.is_ascii_digit()).count();
    if n == 0 || fixed && n != 3 {
        return Err(Bad);
    }
    let v = s[..n].iter().fold(0, |v, c| v * 10 + i64::from(c - b'0'));
    Ok((v, &s[n..]))
}

/// The time package's `atoi`: an optional sign and digits, nothing else.
fn atoi(s: &[u8]) -> Result<i64, Bad> {
    let (negative, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (n, rest) = leading_int(digits).ok_or(Bad)?;
    if !rest.is_empty() {
        return Err(Bad);
    }
    let n = i64::try_from(n).map_err(|_| Bad)?;
    Ok(if negative { -n } else { n })
}

/// `leadingInt`: the leading digits, `None` past 2^63.
fn leading_int(s: &[u8]) -> Option<(u64, &[u8])> {
    let n = s.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut x: u64 = 0;
    for &c in &s[..n] {
        if x > (1 << 63) / 10 {
            return None;
        }
        x = x * 10 + u64::from(c - b'0');
        if x > 1 << 63 {
            return None;
        }
    }
    Some((x, &s[n..]))
}

fn comma_or_period(c: u8) -> bool {
    c == b'.' || c == b','
}

/// `parseNanoseconds`: the fraction in `value[..n]` (separator included) as
/// nanoseconds, the range error if it is negative, and what follows it.
fn parse_nanoseconds(value: &[u8], n: usize) -> Result<(i64, &'static str, &[u8]), Bad> {
    if !comma_or_period(value[0]) {
        return Err(Bad);
    }
    let rest = &value[n..];
    let n = n.min(10);
    let mut ns = atoi(&value[1..n])?;
    if ns < 0 {
        return Ok((ns, "fractional second", rest));
    }
    for _ in n..10 {
        ns *= 10;
    }
    Ok((ns, "", rest))
}

/// `parseTimeZone`: the length of the zone abbreviation `value` starts with.
fn parse_time_zone(value: &[u8]) -> Option<usize> {
    if value.len() < 3 {
        return None;
    }
    if value.starts_with(b"ChST") || value.starts_with(b"MeST") {
        return Some(4);
    }
    if value.starts_with(b"GMT") {
        return Some(3 + parse_signed_offset(&value[3..]).unwrap_or(0));
    }
    if matches!(value[0], b'+' | b'-') {
        return parse_signed_offset(value);
    }
    let upper = value
        .iter()
        .take(6)
        .take_while(|c| c.is_ascii_uppercase())
        .count();
    match upper {
        5 if value[4] == b'T' => Some(5),
        4 if value[3] == b'T' || value.starts_with(b"WITA") => Some(4),
        3 => Some(3),
        _ => None,
    }
}

/// `parseSignedOffset`: a sign and an hour from -23 to +23.
fn parse_signed_offset(value: &[u8]) -> Option<usize> {
    if !matches!(value.first(), Some(b'+' | b'-')) {
        return None;
    }
    let (x, rest) = leading_int(&value[1..])?;
    if rest.len() == value.len() - 1 || x > 23 {
        return None;
    }
    Some(value.len() - rest.len())
}

/// The days of a non-leap year before month `m` (1-13).
fn days_before(m: i64) -> i64 {
    [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365][(m - 1) as usize]
}
