//! ModRule `match` semantics (KubeMod v0.20.0 `IsMatch`/`isMatch` in
//! `core/modrulestoreitem.go`).
//!
//! A rule matches when every item is positive; items are checked in order and the
//! first negative one stops. One item evaluates its select against the document:
//!
//! | outcome | item |
//! |---|---|
//! | evaluation error, nil or Undefined | `negate` |
//! | a single bool | `value != negate`; the criteria are ignored |
//! | a list (wildcards, filters, `..`, or a path landing on an array) | its elements, Undefined dropped; empty gives `negate` |
//! | anything else | that one value |
//!
//! Each candidate becomes text (strings as they are, the rest Go `%v`: `80`, `1e+06`,
//! `true`, `map[a:1]`, `[a b]`, `<nil>`) and is tested against the first criterion
//! present: `match_value` (exact), else non-empty `match_values` (any equal), else
//! `match_regex` (unanchored RE2 search), else nothing (any candidate passes). With
//! `MatchFor::Any` the item is `!negate` when some candidate passes, else `negate`; with
//! `MatchFor::All` it is `negate` when some candidate fails (or the list held Undefined),
//! else `!negate`.

use regex::Regex;
use serde_json::Value;
use std::borrow::Cow;

use crate::engines::kubemod::select::{Outcome, Select, Val};

/// `matchFor`. KubeMod treats any value other than `Any` or empty as `All`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MatchFor {
    #[default]
    Any,
    All,
}

/// One compiled `spec.match[]` item. Compile `match_regex` with
/// [`kadmit_go::regexp::compile`], which reads Go's RE2 syntax and means what Go means.
#[derive(Debug)]
pub struct MatchItem {
    pub select: Select,
    pub match_for: MatchFor,
    pub match_value: Option<String>,
    pub match_values: Vec<String>,
    pub match_regex: Option<Regex>,
    pub negate: bool,
}

/// Whether every item matches `doc` (KubeMod `IsMatch`).
pub fn is_match(items: &[MatchItem], doc: &Value) -> bool {
    items.iter().all(|item| item_matches(item, doc))
}

/// One item (KubeMod `isMatch`), `negate` already applied.
pub fn item_matches(item: &MatchItem, doc: &Value) -> bool {
    item_outcome(item, &item.select.evaluate(doc))
}

/// One item, given what its select evaluated to.
pub fn item_outcome(item: &MatchItem, evaluated: &Result<Outcome<'_>, String>) -> bool {
    let negate = item.negate;
    let Ok(result) = evaluated else {
        return negate;
    };
    if result.is_undefined() || result.is_nil() {
        return negate;
    }
    if let Some(b) = result.as_bool() {
        return b != negate;
    }
    match result {
        Val::List(items) => verdict(
            item,
            items.iter().filter(|v| !v.is_undefined()).map(Val::text),
            items.iter().any(Val::is_undefined),
        ),
        Val::Json(Value::Array(items)) => verdict(item, items.iter().map(json_text), false),
        single => verdict(item, std::iter::once(single.text()), false),
    }
}

/// The item's outcome for the candidates of a result, as text.
fn verdict<'t>(
    item: &MatchItem,
    mut candidates: impl Iterator<Item = Cow<'t, str>>,
    had_undefined: bool,
) -> bool {
    let negate = item.negate;
    let Some(first) = candidates.next() else {
        return negate;
    };
    let mut candidates = std::iter::once(first).chain(candidates);
    match item.match_for {
        MatchFor::Any => {
            if candidates.any(|c| passes(item, &c)) {
                !negate
            } else {
                negate
            }
        }
        MatchFor::All => {
            if had_undefined || !candidates.all(|c| passes(item, &c)) {
                negate
            } else {
                !negate
            }
        }
    }
}

fn json_text(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(s) => Cow::Borrowed(s),
        other => Cow::Owned(Val::Json(other).format()),
    }
}

/// KubeMod `isStringMatch`: only the first criterion present counts.
fn passes(item: &MatchItem, candidate: &str) -> bool {
    if let Some(value) = &item.match_value {
        return candidate == value;
    }
    if !item.match_values.is_empty() {
        return item.match_values.iter().any(|v| v == candidate);
    }
    if let Some(re) = &item.match_regex {
        return re.is_match(candidate);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::kubemod::select::compile;
    use serde_json::json;

    fn item(select: &str) -> MatchItem {
        MatchItem {
            select: compile(select).expect("compiles"),
            match_for: MatchFor::Any,
            match_value: None,
            match_values: Vec::new(),
            match_regex: None,
            negate: false,
        }
    }

    fn doc() -> Value {
        json!({
            "kind": "Pod",
            "spec": {
                "hostNetwork": true,
                "replicas": 1000000,
                "empty": [],
                "containers": [{"image": "nginx:1.14", "privileged": false}, {"image": "redis"}]
            }
        })
    }

    #[test]
    fn single_boolean_ignores_criteria() {
        let mut i = item("$.spec.hostNetwork");
        i.match_value = Some("false".into());
        assert!(is_match(&[i], &doc()));
    }

    #[test]
    fn numbers_compare_as_go_text() {
        let mut i = item("$.spec.replicas");
        i.match_value = Some("1000000".into());
        assert!(!is_match(std::slice::from_ref(&i), &doc()));
        i.match_value = Some("1e+06".into());
        assert!(is_match(&[i], &doc()));
    }

    #[test]
    fn lists_and_emptiness() {
        assert!(!is_match(&[item("$.spec.empty")], &doc()));
        assert!(
            is_match(&[item("$.spec.containers[*].privileged")], &doc()),
            "false in a list is a value"
        );
        let mut all = item("$.spec.containers[*].image");
        all.match_for = MatchFor::All;
        all.match_regex = Some(kadmit_go::regexp::compile("^nginx").expect("regex"));
        assert!(!is_match(std::slice::from_ref(&all), &doc()));
        all.match_regex = Some(kadmit_go::regexp::compile("i").expect("regex"));
        assert!(is_match(&[all], &doc()));
    }

    #[test]
    fn errors_and_undefined_give_negate() {
        let mut i = item("$.spec.containers[9].image");
        assert!(!is_match(std::slice::from_ref(&i), &doc()));
        i.negate = true;
        assert!(is_match(&[i], &doc()));
        let mut u = item("$.nope");
        u.negate = true;
        assert!(is_match(&[u], &doc()));
    }

    #[test]
    fn first_criterion_wins() {
        let mut i = item("$.kind");
        i.match_value = Some("Service".into());
        i.match_values = vec!["Pod".into()];
        assert!(!is_match(std::slice::from_ref(&i), &doc()));
        i.match_value = None;
        assert!(is_match(&[i], &doc()));
    }
}
