//! `time`: `time.Parse` with Go's layouts and `*time.ParseError` texts, the `time.Time`
//! it yields and its `String()`, and `time.ParseDuration`.
//!
//! kadmit reads no zone database: the local zone (`time.Local`) is UTC, so `Parse` and
//! `ParseInLocation(…, time.Local)` are the same [`parse`].

mod duration;
mod layout;
mod parse;
#[cfg(test)]
mod tests;
mod value;

pub use duration::parse_duration;
pub use parse::{parse, ParseError};
pub use value::Time;

/// Go's predefined layouts.
pub const ANSIC: &str = "Mon Jan _2 15:04:05 2006";
pub const UNIX_DATE: &str = "Mon Jan _2 15:04:05 MST 2006";
pub const RUBY_DATE: &str = "Mon Jan 02 15:04:05 -0700 2006";
pub const RFC822: &str = "02 Jan 06 15:04 MST";
pub const RFC822Z: &str = "02 Jan 06 15:04 -0700";
pub const RFC850: &str = "Monday, 02-Jan-06 15:04:05 MST";
pub const RFC1123: &str = "Mon, 02 Jan 2006 15:04:05 MST";
pub const RFC1123Z: &str = "Mon, 02 Jan 2006 15:04:05 -0700";
pub const RFC3339: &str = "2006-01-02T15:04:05Z07:00";
pub const RFC3339_NANO: &str = "2006-01-02T15:04:05.999999999Z07:00";
pub const KITCHEN: &str = "3:04PM";
pub const DATE_TIME: &str = "2006-01-02 15:04:05";
pub const DATE_ONLY: &str = "2006-01-02";
pub const TIME_ONLY: &str = "15:04:05";
