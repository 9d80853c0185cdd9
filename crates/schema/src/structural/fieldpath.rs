//! `cel.ValidFieldPath`: an `x-kubernetes-validations` `fieldPath` (`.a.b`, `['c.d']`,
//! `.m['key']`) must name a field the schema defines; numeric indices are not allowed.

use super::node::Node;

/// One resolved step: a property name, or a map key under `additionalProperties`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Field(String),
    Key(String),
}

/// The steps of `path` below `schema`, or why it does not resolve.
pub fn resolve(path: &str, schema: Node<'_>) -> Result<Vec<Step>, String> {
    let tokens = tokenize(path);
    let mut steps = Vec::new();
    let mut node = Some(schema);
    let mut it = tokens.into_iter();
    while let Some(tok) = it.next() {
        let name = match tok.as_str() {
            "[" => {
                let quoted = it.next().ok_or("unexpected end of JSON path")?;
                let inner = quoted
                    .strip_prefix('\'')
                    .and_then(|q| q.strip_suffix('\''))
                    .filter(|_| quoted.len() >= 2)
                    .ok_or_else(|| format!("expected single quoted string but got {quoted}"))?;
                let name = unescape(inner).map_err(|e| format!("invalid string literal: {e}"))?;
                match it.next() {
                    Some(t) if t == "]" => name,
                    Some(t) => return Err(format!("expected ] but got {t}")),
                    None => return Err("unexpected end of JSON path".into()),
                }
            }
            "." => it.next().ok_or("unexpected end of JSON path")?,
            other => return Err(format!("expected [ or . but got: {other}")),
        };
        let current = node.ok_or("does not refer to a valid field")?;
        if current.non_empty("properties") {
            node = Some(
                current
                    .property(&name)
                    .ok_or("does not refer to a valid field")?,
            );
            steps.push(Step::Field(name));
        } else if let Some(additional) = current.additional() {
            node = additional;
            steps.push(Step::Key(name));
        } else {
            return Err("does not refer to a valid field".into());
        }
    }
    Ok(steps)
}

/// Splits on `.`, `[` and `]`, keeping single-quoted strings (with `\'` escapes) whole.
fn tokenize(path: &str) -> Vec<String> {
    let chars: Vec<char> = path.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\'' {
            let mut j = i + 1;
            while j < chars.len() && !(chars[j] == '\'' && chars[j - 1] != '\\') {
                j += 1;
            }
            let end = (j + 1).min(chars.len());
            tokens.push(chars[i..end].iter().collect());
            i = end;
        } else if matches!(chars[i], '.' | '[' | ']') {
            tokens.push(chars[i].to_string());
            i += 1;
        } else {
            let start = i;
            while i < chars.len() && !matches!(chars[i], '.' | '[' | ']') {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        }
    }
    tokens
}

fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next() {
            Some('a') => '\u{7}',
            Some('b') => '\u{8}',
            Some('f') => '\u{c}',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('v') => '\u{b}',
            Some('\'') => '\'',
            Some('\\') => '\\',
            Some(other) => return Err(format!("invalid escape char \\{other}")),
            None => return Err("invalid escape char \\".into()),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resolves_fields_and_keys() {
        let s = json!({"type": "object", "properties": {
            "a": {"type": "object", "properties": {"b.c": {"type": "string"}}},
            "m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"x": {"type": "string"}}}},
            "l": {"type": "array", "items": {"type": "string"}}
        }});
        let n = Node::new(&s);
        assert_eq!(
            resolve(".a['b.c']", n),
            Ok(vec![Step::Field("a".into()), Step::Field("b.c".into())])
        );
        assert_eq!(
            resolve(".m['k'].x", n),
            Ok(vec![
                Step::Field("m".into()),
                Step::Key("k".into()),
                Step::Field("x".into())
            ])
        );
        assert!(resolve(".nope", n).is_err());
        assert!(resolve(".l[0]", n).is_err());
        assert!(resolve("a", n).is_err());
        assert!(resolve(".a.", n).is_err());
    }
}
