//! Whether a document's own text may be written out again as it is: text that every YAML
//! 1.1 and 1.2 reader reads to the value kubectl reads (docs/yaml.md, "Untouched
//! documents"). The composer asks [`plain_scalar`] of each plain scalar as it reads it, so
//! the answer costs no second reading; [`text`] rules out what the events do not show.

use super::emit::write_scalar;
use super::scalar::needs_quotes;
use serde_json::Value;

/// Whether a plain scalar, read by kubectl as `value`, means the same to every reader: a
/// string the writer would leave plain itself (no reader takes it for anything else), an
/// empty scalar (null everywhere), or a boolean, null or number spelled exactly as the
/// writer spells it (`true`, `null`, `8080`, `0.5`; not `yes`, `~`, `0755`, `1.0`, `1e3`).
/// A key must be such a string: `true:` or `1:` is a string key to kubectl but not to a
/// YAML 1.2 reader.
pub fn plain_scalar(text: &str, value: &Value, is_key: bool) -> bool {
    match value {
        Value::String(_) => plain_string(text),
        _ if is_key => false,
        Value::Null if text.is_empty() => true,
        Value::Number(n) if n.is_i64() || n.is_u64() => plain_integer(text),
        _ => {
            let mut canonical = String::with_capacity(text.len());
            write_scalar(&mut canonical, value);
            canonical == text
        }
    }
}

/// Whether a plain scalar kubectl reads as a string is a string to every reader.
pub fn plain_string(text: &str) -> bool {
    !needs_quotes(text)
}

/// A decimal integer without sign or leading zero, as the writer writes one.
fn plain_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && !(digits == "0" && text.starts_with('-'))
}

/// Whether the text holds nothing the parser's events hide that readers may take
/// differently: directives (`%YAML`, `%TAG`) and document-end markers (`...`) at the start
/// of a line, or the escape `\/` (YAML 1.2 only; a YAML 1.1 reader refuses it).
pub fn text(text: &str) -> bool {
    if text.contains("\\/") {
        return false;
    }
    !text
        .split('\n')
        .any(|line| line.starts_with('%') || line.starts_with("..."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_scalars_spelled_as_the_writer_spells_them_are_portable() {
        assert!(plain_scalar("nginx", &json!("nginx"), false));
        assert!(plain_scalar("nginx", &json!("nginx"), true));
        assert!(plain_scalar("8080", &json!(8080), false));
        assert!(plain_scalar("-3", &json!(-3), false));
        assert!(plain_scalar("0", &json!(0), false));
        assert!(plain_scalar("0.5", &json!(0.5), false));
        assert!(plain_scalar("true", &json!(true), false));
        assert!(plain_scalar("null", &Value::Null, false));
        assert!(plain_scalar("", &Value::Null, false));
    }

    #[test]
    fn yaml_1_1_only_spellings_are_not() {
        assert!(!plain_scalar("yes", &json!(true), false));
        assert!(!plain_scalar("on", &json!(true), false));
        assert!(!plain_scalar("True", &json!(true), false));
        assert!(!plain_scalar("~", &Value::Null, false));
        assert!(!plain_scalar("0755", &json!(493), false));
        assert!(!plain_scalar("0x1F", &json!(31), false));
        assert!(!plain_scalar("1_000", &json!(1000), false));
        assert!(!plain_scalar("+7", &json!(7), false));
        assert!(!plain_scalar("-0", &json!(0), false));
        assert!(!plain_scalar("1.0", &json!(1), false));
        assert!(!plain_scalar("1e3", &json!(1000), false));
        assert!(!plain_scalar("1:30", &json!(90), false));
        // Strings a YAML 1.2 reader would take for something else.
        assert!(!plain_scalar("2024-01-01", &json!("2024-01-01"), false));
        // Keys that are strings only to kubectl.
        assert!(!plain_scalar("true", &json!(true), true));
        assert!(!plain_scalar("1", &json!(1), true));
        assert!(!plain_scalar("y", &json!(true), true));
    }

    #[test]
    fn both_readers_say_whether_a_document_is_portable() {
        use crate::compose::{compose_with, compose_with_full_parser};
        let cases = [
            ("a: b  # c\nl: [x, 'y']\nm: {d: 1}\ns: |\n  t\n", true),
            ("a: 0755\n", false),
            ("a: \"x\\/y\"\n", false),
            ("on: 1\n", false),
            ("a: {yes: 1}\n", false),
            ("a: [1.0]\n", false),
            ("a: &x 1\nb: *x\n", false),
            ("a: !!str 1\n", false),
            ("a: 1\n...\n", false),
        ];
        for (text, portable) in cases {
            let limits = crate::Limits::default();
            let fast = compose_with(text, &limits).unwrap();
            let full = compose_with_full_parser(text, &limits).unwrap();
            assert_eq!(fast[0].portable, portable, "{text:?}");
            assert_eq!(full[0].portable, portable, "{text:?} (full parser)");
        }
    }

    #[test]
    fn directives_end_markers_and_slash_escapes_are_not() {
        assert!(text("a: 1\n# %YAML\nb: \"x\\ty\"\n"));
        assert!(!text("%YAML 1.1\na: 1\n"));
        assert!(!text("a: 1\n...\n"));
        assert!(!text("a: \"x\\/y\"\n"));
    }
}
