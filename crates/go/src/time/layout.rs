//! `nextStdChunk`: the elements of a layout string.

/// A layout element (`stdLongMonth` … `stdFracSecond9`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Std {
    LongMonth,
    Month,
    NumMonth,
    ZeroMonth,
    LongWeekDay,
    WeekDay,
    Day,
    UnderDay,
    ZeroDay,
    UnderYearDay,
    ZeroYearDay,
    Hour,
    Hour12,
    ZeroHour12,
    Minute,
    ZeroMinute,
    Second,
    ZeroSecond,
    LongYear,
    Year,
    PM,
    Pm,
    TZ,
    Iso8601TZ,
    Iso8601SecondsTZ,
    Iso8601ShortTZ,
    Iso8601ColonTZ,
    Iso8601ColonSecondsTZ,
    NumTZ,
    NumSecondsTZ,
    NumShortTZ,
    NumColonTZ,
    NumColonSecondsTZ,
    /// `.000`: exactly this many digits.
    FracSecond0(usize),
    /// `.999`: any number of digits, or none.
    FracSecond9(usize),
}

/// The zone elements, longest first, with the `Z` form's element.
const ZONES: [(&[u8], Std, Std); 5] = [
    (b"070000", Std::NumSecondsTZ, Std::Iso8601SecondsTZ),
    (
        b"07:00:00",
        Std::NumColonSecondsTZ,
        Std::Iso8601ColonSecondsTZ,
    ),
    (b"0700", Std::NumTZ, Std::Iso8601TZ),
    (b"07:00", Std::NumColonTZ, Std::Iso8601ColonTZ),
    (b"07", Std::NumShortTZ, Std::Iso8601ShortTZ),
];

/// The text before the first element of `layout`, the element, and the text after it;
/// `None` and an empty suffix when there is no element.
pub(super) fn next_std_chunk(layout: &[u8]) -> (&[u8], Option<Std>, &[u8]) {
    let at = |i: usize, s: &[u8]| layout.get(i..i + s.len()) == Some(s);
    let lower_at = |i: usize| layout.get(i).is_some_and(u8::is_ascii_lowercase);
    for i in 0..layout.len() {
        let found = match layout[i] {
            b'J' if at(i, b"Jan") => {
                if at(i, b"January") {
                    Some((Std::LongMonth, 7))
                } else if !lower_at(i + 3) {
                    Some((Std::Month, 3))
                } else {
                    None
                }
            }
            b'M' if at(i, b"Mon") && at(i, b"Monday") => Some((Std::LongWeekDay, 6)),
            b'M' if at(i, b"Mon") && !lower_at(i + 3) => Some((Std::WeekDay, 3)),
            b'M' if at(i, b"MST") => Some((Std::TZ, 3)),
            b'0' if layout.get(i + 1).is_some_and(|c| (b'1'..=b'6').contains(c)) => {
                let std = [
                    Std::ZeroMonth,
                    Std::ZeroDay,
                    Std::ZeroHour12,
                    Std::ZeroMinute,
                    Std::ZeroSecond,
                    Std::Year,
                ][usize::from(layout[i + 1] - b'1')];
                Some((std, 2))
            }
            b'0' if at(i, b"002") => Some((Std::ZeroYearDay, 3)),
            b'1' if at(i, b"15") => Some((Std::Hour, 2)),
            b'1' => Some((Std::NumMonth, 1)),
            b'2' if at(i, b"2006") => Some((Std::LongYear, 4)),
            b'2' => Some((Std::Day, 1)),
            // `_2006` is a literal `_` and the year.
            b'_' if at(i, b"_2006") => {
                return (&layout[..=i], Some(Std::LongYear), &layout[i + 5..]);
            }
            b'_' if at(i, b"_2") => Some((Std::UnderDay, 2)),
            b'_' if at(i, b"__2") => Some((Std::UnderYearDay, 3)),
            b'3' => Some((Std::Hour12, 1)),
            b'4' => Some((Std::Minute, 1)),
            b'5' => Some((Std::Second, 1)),
            b'P' if at(i, b"PM") => Some((Std::PM, 2)),
            b'p' if at(i, b"pm") => Some((Std::Pm, 2)),
            c @ (b'-' | b'Z') => ZONES
                .iter()
                .find(|(text, _, _)| at(i + 1, text))
                .map(|&(text, num, iso)| (if c == b'-' { num } else { iso }, 1 + text.len())),
            b'.' | b',' if matches!(layout.get(i + 1), Some(b'0' | b'9')) => {
                let digit = layout[i + 1];
                let run = layout[i + 1..].iter().take_while(|&&c| c == digit).count();
                // The run of digits must end here: only a fraction is all digits.
                if layout.get(i + 1 + run).is_some_and(u8::is_ascii_digit) {
                    None
                } else if digit == b'0' {
                    Some((Std::FracSecond0(run), 1 + run))
                } else {
                    Some((Std::FracSecond9(run), 1 + run))
                }
            }
            _ => None,
        };
        if let Some((std, len)) = found {
            return (&layout[..i], Some(std), &layout[i + len..]);
        }
    }
    (layout, None, &[])
}
