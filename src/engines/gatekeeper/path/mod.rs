//! Gatekeeper location paths: `spec.containers[name: foo].image`, parsed as Gatekeeper's
//! `pkg/mutation/path/parser` does, and rendered back as its `Path.String()` does.

pub mod parser;
mod scanner;
pub mod tester;

pub use parser::{parse, ErrorKind};

/// The value of a keyed list segment: an unquoted integer is an int64, anything else a string.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KeyValue {
    String(String),
    Int(i64),
}

/// One segment of a location.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Node {
    /// A map field.
    Object(String),
    /// A keyed list segment `[key_field: value]`; `value: None` is the glob `[key_field: *]`.
    List {
        key_field: String,
        key_value: Option<KeyValue>,
    },
}

/// A parsed location: the nodes in order (a list segment is its own node).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Path {
    pub nodes: Vec<Node>,
}
