//! HELPER-OWNED (path helper): parse() and Path's Display.
use super::Path;

/// Gatekeeper's error kinds (`ErrTrailingSeparator`, `ErrUnexpectedToken`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    TrailingSeparator,
    UnexpectedToken,
    InvalidInteger,
    InvalidCharacter,
    UnterminatedString,
}

/// A location that does not parse; `message` is Gatekeeper's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub kind: ErrorKind,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

pub fn parse(_input: &str) -> Result<Path, ParseError> {
    unimplemented!("path helper")
}
