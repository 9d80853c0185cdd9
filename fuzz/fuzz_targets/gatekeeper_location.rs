//! Gatekeeper's location parser: parse a fuzzed location; when it parses, its rendering
//! (`Path.String()`) must parse back to the same path, wherever upstream's rendering is
//! re-readable (Gatekeeper leaves a name unquoted when it holds only characters outside
//! both the identifier set and its quoting set, e.g. `a/b`; such paths are not checked).
//! The path is also given to the path-test validator. A panic or a mismatch is a crash.

#![no_main]

use kadmit::testing::gatekeeper::path::tester::Tester;
use kadmit::testing::gatekeeper::path::{parse, KeyValue, Node, Path};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

/// Longer locations are skipped: the parser's own limits bound everything below this.
const MAX_INPUT: usize = 64 << 10;

/// Whether Gatekeeper's `quote` renders `name` so that the scanner reads it back: it is
/// quoted, or it is a bare identifier.
fn renders_readably(name: &str) -> bool {
    let quoted = name.is_empty()
        || name.starts_with(|c: char| c.is_ascii_digit())
        || name.contains(['\'', '"', '\t', '\n', ' ', '\\', '*', '[', ']', ':', '.']);
    quoted
        || name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn readable(path: &Path) -> bool {
    path.nodes.iter().all(|node| match node {
        Node::Object(name) => renders_readably(name),
        Node::List {
            key_field,
            key_value,
        } => {
            renders_readably(key_field)
                && match key_value {
                    Some(KeyValue::String(s)) => renders_readably(s),
                    _ => true,
                }
        }
    })
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(location) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(path) = parse(location) else {
        return;
    };
    let rendered = path.to_string();
    if readable(&path) {
        match parse(&rendered) {
            Ok(again) => assert_eq!(
                again, path,
                "{location:?} renders as {rendered:?}, which parses differently"
            ),
            Err(e) => panic!("{location:?} renders as {rendered:?}, which does not parse: {e}"),
        }
    }
    // The location as its own path test, and its parent as MustNotExist.
    let tests = json!([
        {"subPath": location, "condition": "MustExist"},
        {"subPath": rendered, "condition": "MustNotExist"},
    ]);
    let _ = Tester::from_spec(&path, Some(&tests), "Assign", "fuzz");
});
