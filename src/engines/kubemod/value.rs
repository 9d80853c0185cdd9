//! A patch `value` is YAML text (after its template ran), typed the way KubeMod types it:
//! `sigs.k8s.io/yaml.YAMLToJSON`, go-yaml v2, YAML 1.1. `'8080'` is a number,
//! `'"8080"'` a string, `yes` a boolean, empty text null; only the first document counts.

use kadmit_yaml::compose::compose;
use kadmit_yaml::scalar::{resolve_plain, Resolved};
use serde_json::Value;

pub fn typed_value(text: &str) -> Result<Value, String> {
    if let Some(value) = simple_scalar(text) {
        return Ok(value);
    }
    let documents = compose(text)
        .map_err(|e| format!("value is not valid YAML (line {}): {}", e.line, e.message))?;
    Ok(documents
        .into_iter()
        .next()
        .map_or(Value::Null, |d| d.value))
}

/// What YAML makes of `text` when it is obviously one scalar: a double-quoted string
/// without escapes, or a plain scalar of letters, digits, `.`, `_`, `/` and `-`.
fn simple_scalar(text: &str) -> Option<Value> {
    let bytes = text.as_bytes();
    if let [b'"', inner @ .., b'"'] = bytes {
        let unescaped = inner
            .iter()
            .all(|b| matches!(b, b' '..=b'~') && !matches!(b, b'"' | b'\\'));
        return unescaped.then(|| Value::String(text[1..text.len() - 1].to_owned()));
    }
    let simple = bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-'));
    if !simple {
        return None;
    }
    match resolve_plain(text) {
        Resolved::Value(value) => Some(value),
        Resolved::NonFinite | Resolved::IntegerOverflow => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn simple_scalars_read_as_the_parser_reads_them() {
        let texts = [
            "Always",
            "yes",
            "No",
            "on",
            "y",
            "true",
            "null",
            "Null",
            "~",
            "8080",
            "0755",
            "0x1F",
            "0o17",
            "1_000",
            "1e3",
            "1.5",
            "-1",
            "3.0",
            "2020-01-02",
            "a/b.c_d-e",
            "v1",
            "9223372036854775808",
            "1e400",
            "\"\"",
            "\"a b\"",
            "\" x # y: z \"",
            "\"8080\"",
            "\"yes\"",
            "\"\"\"",
            "\"a\\\"b\"",
            "\"a\\nb\"",
            "\"é\"",
        ];
        for text in texts {
            if let Some(value) = simple_scalar(text) {
                let parsed = compose(text).expect("parses").remove(0).value;
                assert_eq!(parsed, value, "{text}");
            }
        }
        for text in ["Always", "0755", "\"a b\"", "\" x # y: z \""] {
            assert!(simple_scalar(text).is_some(), "{text}");
        }
        for text in ["\"a\\\"b\"", "\"a\\nb\"", "\"é\"", "a b", "-1", ".5"] {
            assert!(simple_scalar(text).is_none(), "{text}");
        }
    }

    #[test]
    fn yaml_1_1_typing() {
        assert_eq!(typed_value("8080").unwrap(), json!(8080));
        assert_eq!(typed_value("\"8080\"").unwrap(), json!("8080"));
        assert_eq!(typed_value("yes").unwrap(), json!(true));
        assert_eq!(typed_value("0755").unwrap(), json!(493));
        assert_eq!(typed_value("").unwrap(), Value::Null);
        assert_eq!(typed_value("2020-01-02").unwrap(), json!("2020-01-02"));
        assert_eq!(typed_value("text: more").unwrap(), json!({"text": "more"}));
        assert_eq!(typed_value("[a, 1]").unwrap(), json!(["a", 1]));
        assert!(typed_value(".inf").is_err());
        assert!(typed_value("a: [").is_err());
    }
}
