//! `time.Time` as parsing yields it, and its `String()`.

use std::fmt;

/// A `time.Time`: the instant (seconds and nanoseconds since the Unix epoch) and its
/// zone: the offset east of UTC and the zone's name (empty for an unnamed fixed zone).
/// Equality stands in for `reflect.DeepEqual`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Time {
    pub unix: i64,
    pub nanos: u32,
    pub offset: i32,
    pub zone: String,
}

impl Time {
    /// `time.Date(…, time.UTC)`; the fields are in range.
    pub(super) fn utc(
        year: i64,
        month: i64,
        day: i64,
        hour: i64,
        min: i64,
        sec: i64,
        nanos: u32,
    ) -> Time {
        Time {
            unix: days_from_civil(year, month, day) * 86_400 + hour * 3600 + min * 60 + sec,
            nanos,
            offset: 0,
            zone: "UTC".to_owned(),
        }
    }

    /// The time in `time.FixedZone(name, offset)`; with `shift`, the wall clock read so
    /// far was the zone's (the instant moves), else it was UTC's.
    pub(super) fn in_fixed_zone(self, name: String, offset: i32, shift: bool) -> Time {
        let unix = if shift {
            self.unix - i64::from(offset)
        } else {
            self.unix
        };
        Time {
            unix,
            offset,
            zone: name,
            ..self
        }
    }
}

impl Time {
    /// `Time.Format(time.RFC3339Nano)`: `2006-01-02T15:04:05.999999999Z07:00`, the
    /// fraction without trailing zeros, `Z` for a zero offset. Years 0 to 9999.
    pub fn format_rfc3339_nano(&self) -> String {
        let local = self.unix + i64::from(self.offset);
        let (year, month, day) = civil_from_days(local.div_euclid(86_400));
        let secs = local.rem_euclid(86_400);
        let mut out = format!(
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
            secs / 3600,
            secs % 3600 / 60,
            secs % 60
        );
        if self.nanos > 0 {
            let fraction = format!("{:09}", self.nanos);
            out.push('.');
            out.push_str(fraction.trim_end_matches('0'));
        }
        if self.offset == 0 {
            out.push('Z');
        } else {
            let sign = if self.offset < 0 { '-' } else { '+' };
            let minutes = self.offset.abs() / 60;
            out.push_str(&format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60));
        }
        out
    }
}

/// Go's `Time.String()`: `2006-01-02 15:04:05.999999999 -0700 MST`, the zone's name
/// replaced by the offset for an unnamed zone.
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let local = self.unix + i64::from(self.offset);
        let (year, month, day) = civil_from_days(local.div_euclid(86_400));
        let secs = local.rem_euclid(86_400);
        if year < 0 {
            write!(f, "-{:04}", -year)?;
        } else {
            write!(f, "{year:04}")?;
        }
        write!(
            f,
            "-{month:02}-{day:02} {:02}:{:02}:{:02}",
            secs / 3600,
            secs % 3600 / 60,
            secs % 60
        )?;
        if self.nanos > 0 {
            let fraction = format!("{:09}", self.nanos);
            write!(f, ".{}", fraction.trim_end_matches('0'))?;
        }
        let sign = if self.offset < 0 { '-' } else { '+' };
        let minutes = self.offset.abs() / 60;
        let offset = format!("{sign}{:02}{:02}", minutes / 60, minutes % 60);
        let zone = if self.zone.is_empty() {
            &offset
        } else {
            &self.zone
        };
        write!(f, " {offset} {zone}")
    }
}

pub(super) fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// `daysIn`: the days of `month` (1-12) in `year`.
pub(super) fn days_in(month: i64, year: i64) -> i64 {
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

/// The date of a day counted from 1970-01-01.
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
