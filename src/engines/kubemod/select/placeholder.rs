//! Patch selects. KubeMod compiles a patch item's `select: S` as the object expression
//! `{#: S}`: one entry per match of the JSONPath `S`, keyed `$["k1"]["k2"]…` by the keys
//! its ambiguous selectors took. The keys are then cut back into parts with the regex
//! `\["([^\[\]"]+)"\]`, and `#N` in the patch path is replaced by part N.

use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use super::ast::Node;
use super::eval::{eval, Ctx};
use super::value::Val;
use super::{parser, Dialect, SelectError};
use kadmit_go::strconv::atoi;

/// A compiled patch select (`{#: <select>}`).
#[derive(Debug)]
pub struct PlaceholderSelect {
    node: Node,
}

/// One part of a select key: digit-only parts (anything Go's `strconv.Atoi` accepts)
/// become indexes, the rest stay keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyPart {
    Index(i64),
    Key(String),
}

impl std::fmt::Display for KeyPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyPart::Index(i) => write!(f, "{i}"),
            KeyPart::Key(k) => f.write_str(k),
        }
    }
}

const PREFIX: &str = "{#: ";

/// Compiles a patch select the way KubeMod does: wrapped as `{#: <source>}` in the full
/// language, so it must be a JSONPath starting with `$` or `@`.
pub fn compile_placeholder(source: &str) -> Result<PlaceholderSelect, SelectError> {
    let wrapped = format!("{PREFIX}{source}}}");
    parser::parse(&wrapped, Dialect::KubeMod)
        .map(|node| PlaceholderSelect { node })
        .map_err(|e| {
            let pos = e.pos.saturating_sub(PREFIX.len()).min(source.len());
            let pos = (0..=pos)
                .rev()
                .find(|p| source.is_char_boundary(*p))
                .unwrap_or(0);
            SelectError::at(source, pos, e.message)
        })
}

impl PlaceholderSelect {
    /// One entry per matched value, in match order (KubeMod's is random: it iterates a
    /// Go map), with the key parts of that match. Matches with the same key collapse
    /// into one (the later value wins), as they do in KubeMod's map.
    pub fn select(&self, doc: &Value) -> Result<Vec<(Vec<KeyPart>, Value)>, String> {
        match eval(&self.node, Ctx::new(doc))? {
            Val::Map(entries) => Ok(entries
                .into_iter()
                .filter_map(|(key, value)| Some((key_parts(&key), value.to_json()?)))
                .collect()),
            other => Err(format!(
                "patch select evaluated to {} instead of an object",
                other.go_type()
            )),
        }
    }
}

fn segment_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#"\["([^\[\]"]+)"\]"#).expect("valid regex"))
}

fn placeholder_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new("#([0-9]+)").expect("valid regex"))
}

/// KubeMod `keyPartsFromSelectKey`: `$["0"]["a"]` → `[0, "a"]`. Segments containing
/// `"`, `[` or `]` (Go-quoted) or empty ones do not match and are dropped.
pub fn key_parts(select_key: &str) -> Vec<KeyPart> {
    segment_regex()
        .captures_iter(select_key)
        .map(|c| {
            let part = &c[1];
            atoi(part).map_or_else(|| KeyPart::Key(part.to_string()), KeyPart::Index)
        })
        .collect()
}

/// KubeMod `pathFromKeyParts`: each `#N` in `template` becomes key part N (in decimal
/// for indexes, unescaped for keys). A part that does not exist makes the whole path
/// fail, with KubeMod's message and the `#(BADINDEX)` marker in the generated value.
/// Unlike KubeMod, a literal `%` in the template is kept as it is (KubeMod passes the
/// path through `fmt.Sprintf`, which mangles it).
pub fn path_from_key_parts(template: &str, parts: &[KeyPart]) -> Result<String, String> {
    let mut bad = false;
    let path = placeholder_regex().replace_all(template, |c: &regex::Captures<'_>| {
        match c[1].parse::<usize>().ok().and_then(|n| parts.get(n)) {
            Some(part) => part.to_string(),
            None => {
                bad = true;
                "#(BADINDEX)".to_string()
            }
        }
    });
    // KubeMod tests the generated path for the marker text, so a template that spells
    // it out fails too.
    if bad || path.contains("(BADINDEX)") {
        return Err(format!(
            "failed to generate Patch path from path template \"{template}\": generated value \"{path}\""
        ));
    }
    Ok(path.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parts(select: &str, doc: &Value) -> Vec<(String, Value)> {
        compile_placeholder(select)
            .expect("compiles")
            .select(doc)
            .expect("evaluates")
            .into_iter()
            .map(|(p, v)| {
                (
                    p.iter()
                        .map(|k| format!("{k:?}"))
                        .collect::<Vec<_>>()
                        .join(","),
                    v,
                )
            })
            .collect()
    }

    #[test]
    fn keys_come_from_ambiguous_selectors() {
        let doc = json!({"spec": {"containers": [
            {"name": "a", "ports": [{"containerPort": 80}, {"containerPort": 81}]},
            {"name": "b", "ports": [{"containerPort": 80}]}
        ]}});
        let got = parts("$.spec.containers[*].ports[? @.containerPort == 80]", &doc);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, "Index(0),Index(0)");
        assert_eq!(got[1].0, "Index(1),Index(0)");
        assert_eq!(parts("$.spec", &doc)[0].0, "");
        assert!(parts("$.missing", &doc).is_empty());
    }

    #[test]
    fn descent_contributes_whole_paths_and_bad_segments_are_dropped() {
        let doc = json!({"a": {"x": 1, "b[c]": {"x": 2}}, "k\"q": {"x": 3}});
        let got = parts("$..x", &doc);
        let keys: Vec<&str> = got.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, vec!["Key(\"a\")", "Key(\"a\")", ""]);
    }

    #[test]
    fn only_paths_compile() {
        let err = compile_placeholder("length($.a)").unwrap_err();
        assert_eq!(err.column, 1);
        assert!(compile_placeholder("$.a == 1").is_err());
        assert!(compile_placeholder("@.a").is_ok());
    }

    #[test]
    fn paths_from_key_parts() {
        let p = key_parts(r#"$["a"]["b"]["c"]"#);
        assert_eq!(
            path_from_key_parts("/hello/#2/whatever/#1/foo/#2/#0", &p).unwrap(),
            "/hello/c/whatever/b/foo/c/a"
        );
        let err = path_from_key_parts("/#5", &p).unwrap_err();
        assert!(err.contains("\"/#(BADINDEX)\""), "{err}");
        assert_eq!(
            key_parts(r#"$["+5"]["007"]"#),
            vec![KeyPart::Index(5), KeyPart::Index(7)]
        );
    }
}
