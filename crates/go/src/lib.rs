//! Ports of the pieces of Go's standard library whose exact behaviour shows through in
//! kadmit's output. The API server, Gatekeeper, KubeMod and Go templates are Go programs:
//! a number, a quoted string, a timestamp or a regular expression must be accepted,
//! refused, read and printed the way theirs are, error texts included. Each module is
//! one Go package (or the part of it kadmit needs); engines share these rather than keep
//! their own.
//!
//! The behaviour reproduced is that of Go 1.22–1.24, the Go releases Kubernetes 1.30–1.35
//! are built with:
//!
//! - [`regexp`]: `regexp.Compile` (RE2 syntax with Perl flags, Go's `regexp/syntax`
//!   parser and its error texts), matching on the `regex` crate;
//! - [`time`]: `time.Parse` with Go's layouts and `*time.ParseError` texts, `Time.String()`,
//!   `Time.Format(time.RFC3339Nano)`, `time.ParseDuration`;
//! - [`strconv`]: integer, float and bool parsing, quoting and unquoting;
//! - [`fmt`], [`fmtfloat`]: `%v` of JSON values and `strconv.FormatFloat`;
//! - [`json`]: `encoding/json`'s `Marshal` of decoded values;
//! - [`convert`]: float-to-integer conversions as they behave on amd64;
//! - [`url`]: `net/url`'s `Parse` and `ParseRequestURI` with their `*url.Error` texts,
//!   and the accessors of the parsed URL.

pub mod convert;
pub mod fmt;
pub mod fmtfloat;
pub mod json;
pub mod regexp;
pub mod strconv;
pub mod time;
pub mod url;
