//! Unknown fields as strict decoding reports them (`unknown field "spec.foo"`), with the
//! field that was probably meant (`(did you mean "foo"?)`) when one is close, and the
//! strict decode of a custom resource against one version's schema: what the API server
//! reports under `fieldValidation=Strict` (reference §1, steps 2.2–2.3), without the
//! defaulting and validation that follow it.

use crate::objectmeta;
use crate::schema::Schema;
use serde_json::Value;
use std::fmt;

/// One unknown field: its strict-decoding path and, when a known field beside it is close,
/// that field's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField {
    pub path: String,
    pub suggestion: Option<String>,
}

impl UnknownField {
    /// The API server's text, `unknown field "<path>"` (the strict-decoding error and the
    /// `Warn` warning alike).
    pub fn server_text(&self) -> String {
        format!("unknown field {}", go_quote(&self.path))
    }
}

/// The server's text followed by ` (did you mean "<field>"?)` when there is a suggestion.
impl fmt::Display for UnknownField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.server_text())?;
        if let Some(suggestion) = &self.suggestion {
            write!(f, " (did you mean {}?)", go_quote(suggestion))?;
        }
        Ok(())
    }
}

/// Go's `strconv.Quote` for the strings field paths hold (what `%q` prints).
fn go_quote(s: &str) -> String {
    kadmit_go::strconv::quote(s, false)
}

/// The field `typo` was probably meant to be: the one of `known` at the smallest edit
/// distance (insertions, deletions, substitutions and swaps of neighbours each count one;
/// a difference of case alone counts as close), when that distance is small for the
/// words' length (at most a third of the longer one, at least 1 and at most 3) and no
/// other field is as close. `None` when nothing is close or two are equally close.
pub fn did_you_mean<'a>(typo: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let typo_chars: Vec<char> = typo.chars().collect();
    let mut best: Option<(usize, &'a str)> = None;
    let mut tied = false;
    for candidate in known {
        if candidate == typo {
            continue;
        }
        let distance = if candidate.to_lowercase() == typo.to_lowercase() {
            0
        } else {
            let candidate_chars: Vec<char> = candidate.chars().collect();
            let longer = typo_chars.len().max(candidate_chars.len());
            let limit = (longer / 3).clamp(1, 3);
            match edit_distance(&typo_chars, &candidate_chars, limit) {
                Some(d) => d,
                None => continue,
            }
        };
        match best {
            Some((d, _)) if distance > d => {}
            Some((d, _)) if distance == d => tied = true,
            _ => {
                best = Some((distance, candidate));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(_, candidate)| candidate)
}

/// The optimal string alignment distance of `a` and `b`, or `None` when it exceeds `limit`.
fn edit_distance(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let width = b.len() + 1;
    let mut rows = vec![vec![0usize; width]; a.len() + 1];
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        rows[i][0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    let d = rows[a.len()][b.len()];
    (d <= limit).then_some(d)
}

/// Decodes `object` strictly against `schema` (one version of its CRD) as the API server
/// decodes a custom resource: the root `metadata` as ObjectMeta, then every field the
/// structural schema does not specify (pruning, the root treated as a resource). The
/// unknown fields are deleted from `object` and returned in the server's order (metadata
/// first, then the pruned paths sorted), each with the field beside it that was probably
/// meant. A `metadata` that does not decode as ObjectMeta is left alone.
pub fn strip_custom_resource(object: &mut Value, schema: Option<&Schema>) -> Vec<UnknownField> {
    let mut out = Vec::new();
    if let Some(metadata) = object.get_mut("metadata") {
        let unknown = objectmeta::unknown_metadata_fields(metadata);
        for (path, at) in &unknown {
            objectmeta::remove_at(metadata, at);
            let suggestion = match at.as_slice() {
                [objectmeta::Seg::Key(key)] => {
                    did_you_mean(key, objectmeta::object_meta_fields()).map(str::to_owned)
                }
                _ => None,
            };
            out.push(UnknownField {
                path: format!("metadata.{path}"),
                suggestion,
            });
        }
    }
    out.extend(
        crate::prune::prune_suggesting(object, schema, true)
            .into_iter()
            .map(|(path, suggestion)| UnknownField { path, suggestion }),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn close_names_are_suggested_and_far_or_tied_ones_are_not() {
        let known = [
            "matchFor",
            "matchRegex",
            "matchValue",
            "matchValues",
            "negate",
            "select",
        ];
        assert_eq!(did_you_mean("matchValu", known), Some("matchValue"));
        assert_eq!(did_you_mean("mtachFor", known), Some("matchFor"));
        assert_eq!(did_you_mean("Select", known), Some("select"));
        assert_eq!(
            did_you_mean("selector", known),
            Some("select"),
            "2 in 8 is close"
        );
        assert_eq!(
            did_you_mean("selects", ["select", "negate"]),
            Some("select")
        );
        assert_eq!(did_you_mean("sel", known), None, "3 in 6 is not");
        assert_eq!(did_you_mean("colour", known), None);
        assert_eq!(did_you_mean("matchValueses", known), Some("matchValues"));
        assert_eq!(
            did_you_mean("ab", ["ac", "ad"]),
            None,
            "a tie suggests nothing"
        );
        assert_eq!(did_you_mean("x", ["y"]), Some("y"), "one letter may differ");
        assert_eq!(
            did_you_mean("maxium", ["maximum", "minimum"]),
            Some("maximum")
        );
        assert_eq!(
            did_you_mean("excludedNamespace", ["excludedNamespaces", "namespaces"]),
            Some("excludedNamespaces")
        );
        assert_eq!(did_you_mean("name", ["name"]), None);
    }

    #[test]
    fn texts_are_the_servers_with_the_suggestion_after() {
        let field = UnknownField {
            path: "spec.match[0].matchValu".into(),
            suggestion: Some("matchValue".into()),
        };
        assert_eq!(
            field.server_text(),
            r#"unknown field "spec.match[0].matchValu""#
        );
        assert_eq!(
            field.to_string(),
            r#"unknown field "spec.match[0].matchValu" (did you mean "matchValue"?)"#
        );
    }

    #[test]
    fn a_custom_resource_loses_and_reports_its_unknown_fields() {
        let schema = Schema::from_value(&json!({
            "type": "object",
            "properties": {
                "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                "metadata": {"type": "object"},
                "spec": {"type": "object", "properties": {
                    "match": {"type": "array", "items": {"type": "object", "properties": {
                        "select": {"type": "string"}, "matchValue": {"type": "string"}}}},
                    "value": {"x-kubernetes-preserve-unknown-fields": true}}}
            }
        }))
        .unwrap();
        let mut object = json!({
            "apiVersion": "g/v1", "kind": "K",
            "metadata": {"name": "n", "labelz": {}},
            "spec": {"match": [{"select": "$", "matchValu": "x"}], "value": {"any": 1}},
            "specs": {}
        });
        let unknown = strip_custom_resource(&mut object, Some(&schema));
        let texts: Vec<String> = unknown.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                r#"unknown field "metadata.labelz" (did you mean "labels"?)"#,
                r#"unknown field "spec.match[0].matchValu" (did you mean "matchValue"?)"#,
                r#"unknown field "specs" (did you mean "spec"?)"#,
            ]
        );
        assert_eq!(
            object,
            json!({"apiVersion": "g/v1", "kind": "K", "metadata": {"name": "n"},
                "spec": {"match": [{"select": "$"}], "value": {"any": 1}}})
        );
    }
}
