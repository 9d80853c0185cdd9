//! Ports of the pieces of Go's standard library whose exact behaviour shows through in
//! kadmit's output: KubeMod and Go templates are Go programs, and a number, a quoted
//! string or a regular expression must come out the way theirs do. Each file is one Go
//! package (or one function of it); engines share these rather than keep their own.

pub mod convert;
pub mod fmt;
pub mod fmtfloat;
pub mod json;
pub mod regexp;
pub mod strconv;
pub mod time;
