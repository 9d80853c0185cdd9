//! Go's `time.Parse(time.RFC3339, s)` as `metav1.Time` calls it when metadata is decoded:
//! only whether it parses matters here, and the exact `*time.ParseError` text when not.

const LAYOUT: &str = "2006-01-02T15:04:05Z07:00";

/// The layout as `time.Parse` walks it: literal text before each element, the element.
const CHUNKS: [(&str, Elem, &str); 7] = [
    ("", Elem::Year, "2006"),
    ("-", Elem::Month, "01"),
    ("-", Elem::Day, "02"),
    ("T", Elem::Hour, "15"),
    (":", Elem::Minute, "04"),
    (":", Elem::Second, "05"),
    ("", Elem::Zone, "Z07:00"),
];

#[derive(Clone, Copy)]
enum Elem {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Zone,
}

/// `Ok` when `value` parses as Go parses RFC 3339, else Go's error text.
pub(super) fn check_rfc3339(value: &str) -> Result<(), String> {
    let mut rest = value.as_bytes();
    let (mut year, mut month, mut day) = (0, 0, 0);
    for (literal, elem, elem_text) in CHUNKS {
        match rest.strip_prefix(literal.as_bytes()) {
            Some(r) => rest = r,
            None => return Err(cannot_parse(value, rest, literal)),
        }
        let mut range = None;
        let parsed = match elem {
            Elem::Year => year_of(rest).map(|(y, r)| {
                year = y;
                r
            }),
            Elem::Month => number(rest, true).map(|(m, r)| {
                month = m;
                range = (!(1..=12).contains(&m)).then_some("month");
                r
            }),
            Elem::Day => number(rest, true).map(|(d, r)| {
                day = d;
                r
            }),
            Elem::Hour => below(number(rest, false), 24, "hour", &mut range),
            Elem::Minute => below(number(rest, true), 60, "minute", &mut range),
            Elem::Second => below(number(rest, true), 60, "second", &mut range).map(skip_fraction),
            Elem::Zone => zone(rest, &mut range),
        };
        if let Some(what) = range {
            return Err(parse_error(value, &format!(": {what} out of range")));
        }
        match parsed {
            Some(r) => rest = r,
            None => return Err(cannot_parse(value, rest, elem_text)),
        }
    }
    if !rest.is_empty() {
        return Err(parse_error(
            value,
            &format!(": extra text: {}", quote(rest)),
        ));
    }
    if day < 1 || day > days_in(month, year) {
        return Err(parse_error(value, ": day out of range"));
    }
    Ok(())
}

fn cannot_parse(value: &str, rest: &[u8], elem: &str) -> String {
    format!(
        "parsing time {} as {}: cannot parse {} as {}",
        quote(value.as_bytes()),
        quote(LAYOUT.as_bytes()),
        quote(rest),
        quote(elem.as_bytes())
    )
}

fn parse_error(value: &str, message: &str) -> String {
    format!("parsing time {}{message}", quote(value.as_bytes()))
}

/// `2006`: four bytes, the first a digit, all of them an integer.
fn year_of(s: &[u8]) -> Option<(u32, &[u8])> {
    if s.len() < 4 || !s[0].is_ascii_digit() || !s[..4].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let year = s[..4].iter().fold(0, |n, b| n * 10 + u32::from(b - b'0'));
    Some((year, &s[4..]))
}

/// Go's `getnum`: one or two digits, exactly two when `fixed`.
fn number(s: &[u8], fixed: bool) -> Option<(u32, &[u8])> {
    let digit = |i: usize| {
        s.get(i)
            .filter(|b| b.is_ascii_digit())
            .map(|b| u32::from(b - b'0'))
    };
    let first = digit(0)?;
    match digit(1) {
        Some(second) => Some((first * 10 + second, &s[2..])),
        None if fixed => None,
        None => Some((first, &s[1..])),
    }
}

/// A parsed number, noting `what` as out of range when it is not below `limit`.
fn below<'a>(
    parsed: Option<(u32, &'a [u8])>,
    limit: u32,
    what: &'static str,
    range: &mut Option<&'static str>,
) -> Option<&'a [u8]> {
    let (n, rest) = parsed?;
    if n >= limit {
        *range = Some(what);
    }
    Some(rest)
}

/// Fractional seconds are accepted although the layout has none.
fn skip_fraction(s: &[u8]) -> &[u8] {
    if s.len() >= 2 && matches!(s[0], b'.' | b',') && s[1].is_ascii_digit() {
        let digits = s[1..].iter().take_while(|b| b.is_ascii_digit()).count();
        &s[1 + digits..]
    } else {
        s
    }
}

/// `Z07:00`: `Z`, or a sign, two hour digits, `:`, two minute digits.
fn zone<'a>(s: &'a [u8], range: &mut Option<&'static str>) -> Option<&'a [u8]> {
    if let Some(rest) = s.strip_prefix(b"Z") {
        return Some(rest);
    }
    if s.len() < 6 || s[3] != b':' {
        return None;
    }
    let hours = number(&s[1..3], true).map(|(n, _)| n);
    let minutes = hours.and(number(&s[4..6], true).map(|(n, _)| n));
    if hours.is_some_and(|h| h > 24) {
        *range = Some("time zone offset hour");
    }
    if minutes.is_some_and(|m| m > 60) {
        *range = Some("time zone offset minute");
    }
    minutes?;
    matches!(s[0], b'+' | b'-').then_some(&s[6..])
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_rfc3339_with_offsets_and_fractions() {
        for ok in [
            "2024-02-29T23:59:59Z",
            "2024-01-01T00:00:00.123+01:00",
            "2024-01-01T1:00:00-24:00",
        ] {
            assert_eq!(check_rfc3339(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn error_texts_follow_time_parse() {
        let cases = [
            (
                "yesterday",
                r#"parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006""#,
            ),
            (
                "2024-01-01",
                r#"parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T""#,
            ),
            (
                "2024-13-01T00:00:00Z",
                r#"parsing time "2024-13-01T00:00:00Z": month out of range"#,
            ),
            (
                "2023-02-29T00:00:00Z",
                r#"parsing time "2023-02-29T00:00:00Z": day out of range"#,
            ),
            (
                "2024-01-01T00:00:00Zjunk",
                r#"parsing time "2024-01-01T00:00:00Zjunk": extra text: "junk""#,
            ),
            (
                "2024-01-01T00:00:00+0100",
                r#"parsing time "2024-01-01T00:00:00+0100" as "2006-01-02T15:04:05Z07:00": cannot parse "+0100" as "Z07:00""#,
            ),
            (
                "2024-01-01T24:00:00Z",
                r#"parsing time "2024-01-01T24:00:00Z": hour out of range"#,
            ),
            (
                "2024-1-01T00:00:00Z",
                r#"parsing time "2024-1-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-01T00:00:00Z" as "01""#,
            ),
            (
                "é",
                r#"parsing time "\xc3\xa9" as "2006-01-02T15:04:05Z07:00": cannot parse "\xc3\xa9" as "2006""#,
            ),
        ];
        for (input, want) in cases {
            assert_eq!(check_rfc3339(input), Err(want.to_owned()), "{input}");
        }
    }
}
