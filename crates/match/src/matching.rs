//! The `match` block of a mutator (`pkg/mutation/match/match.go`): criteria ANDed in
//! Gatekeeper's order, stopping at the first that fails.

use super::selector::{labels_of, LabelSelector, Selector};
use super::values::go_type_name;
use super::{wildcard, Gvk};
use kadmit_go::strconv::quote;
use serde_json::{Map, Value};

/// A decoded `spec.match`. The default matches everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Match {
    kinds: Vec<Kinds>,
    scope: String,
    namespaces: Vec<String>,
    excluded_namespaces: Vec<String>,
    /// Selectors are validated once; an invalid one is reported when it is evaluated.
    label_selector: Option<Result<Selector, String>>,
    namespace_selector: Option<Result<Selector, String>>,
    name: String,
    source: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
struct Kinds {
    api_groups: Vec<String>,
    kinds: Vec<String>,
}

/// What a match block is evaluated against: Gatekeeper's `Matchable`.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub object: &'a Value,
    /// The object's Namespace object (kind Namespace), if known — Gatekeeper's `Namespace *corev1.Namespace`.
    pub namespace: Option<&'a Value>,
    /// "Original", "Generated", or "" (unspecified)
    pub source: &'a str,
}

/// What the criteria read from the object and its Namespace, labels aside, read once: the
/// mutators cannot change the object's name or namespace, and change its GVK only through
/// an Assign at `apiVersion` or `kind` (then `refresh_gvk`).
#[derive(Debug, Clone)]
pub struct Facts {
    pub gvk: Gvk,
    is_namespace: bool,
    name: String,
    generate_name: String,
    namespace: String,
    /// The name of the Namespace object, when there is one.
    namespace_object: Option<String>,
}

impl Facts {
    pub fn of(object: &Value, namespace: Option<&Value>) -> Facts {
        let gvk = Gvk::of(object);
        Facts {
            is_namespace: is_namespace(&gvk),
            gvk,
            name: metadata_str(object, "name").to_owned(),
            generate_name: metadata_str(object, "generateName").to_owned(),
            namespace: metadata_str(object, "namespace").to_owned(),
            namespace_object: namespace.map(|n| metadata_str(n, "name").to_owned()),
        }
    }

    pub fn refresh_gvk(&mut self, object: &Value) {
        self.gvk = Gvk::of(object);
        self.is_namespace = is_namespace(&self.gvk);
    }
}

/// One top-level matcher: `Ok(false)` disqualifies, an error aborts the match.
type Criterion = fn(&Match, &Target, &Facts) -> Result<bool, String>;

const SOURCES: [&str; 3] = ["All", "Generated", "Original"];

impl Match {
    /// `spec.match` of a mutator (None = absent = matches everything). Lenient like gator: unknown fields ignored; wrong types are Err.
    pub fn from_spec(value: Option<&Value>) -> Result<Match, String> {
        let Some(value) = value.filter(|v| !v.is_null()) else {
            return Ok(Match::default());
        };
        let path = "match";
        let fields = expect_map(value, path, "struct from:")?;
        let text = |name: &str| {
            fields.get(name).map_or(Ok(String::new()), |v| {
                string_of(v, &format!("{path}.{name}"))
            })
        };
        let list = |name: &str| string_list(fields.get(name), &format!("{path}.{name}"));
        let selector = |name: &str| -> Result<Option<Result<Selector, String>>, String> {
            match fields.get(name).filter(|v| !v.is_null()) {
                None => Ok(None),
                Some(v) => Ok(Some(
                    LabelSelector::from_value(v, &format!("{path}.{name}"))?.to_selector(),
                )),
            }
        };
        Ok(Match {
            kinds: kinds_of(fields.get("kinds"), &format!("{path}.kinds"))?,
            scope: text("scope")?,
            namespaces: list("namespaces")?,
            excluded_namespaces: list("excludedNamespaces")?,
            label_selector: selector("labelSelector")?,
            namespace_selector: selector("namespaceSelector")?,
            name: text("name")?,
            source: text("source")?,
        })
    }

    /// Gatekeeper's match.Matches: Ok(bool) or Err(message) (errors as Gatekeeper words them).
    pub fn matches(&self, target: &Target) -> Result<bool, String> {
        self.matches_with(target, &Facts::of(target.object, target.namespace))
    }

    /// `matches` with the facts of `target` read already.
    pub fn matches_with(&self, target: &Target, facts: &Facts) -> Result<bool, String> {
        let criteria: [Criterion; 8] = [
            Match::kinds_match,
            Match::scope_match,
            Match::namespaces_match,
            Match::excluded_namespaces_match,
            Match::label_selector_match,
            Match::namespace_selector_match,
            Match::name_match,
            Match::source_match,
        ];
        for criterion in criteria {
            match criterion(self, target, facts) {
                Err(e) => return Err(format!("failed to run Match criteria: {e}")),
                Ok(false) => return Ok(false),
                Ok(true) => {}
            }
        }
        Ok(true)
    }

    /// Whether the outcome can depend on more of the object than its `Facts`: its labels
    /// (`labelSelector`; a Namespace's own labels, `namespaceSelector`). When not, every
    /// state of one object with the same facts gets the same outcome.
    pub fn reads_object(&self) -> bool {
        self.label_selector.is_some() || self.namespace_selector.is_some()
    }

    pub fn uses_namespace_selector(&self) -> bool {
        self.namespace_selector.is_some()
    }

    fn kinds_match(&self, _: &Target, facts: &Facts) -> Result<bool, String> {
        if self.kinds.is_empty() {
            return Ok(true);
        }
        let gvk = &facts.gvk;
        let covers = |set: &[String], element: &str| {
            set.is_empty() || set.iter().any(|s| s == "*" || s == element)
        };
        Ok(self
            .kinds
            .iter()
            .any(|k| covers(&k.kinds, &gvk.kind) && covers(&k.api_groups, &gvk.group)))
    }

    fn scope_match(&self, target: &Target, facts: &Facts) -> Result<bool, String> {
        let has_namespace = !facts.namespace.is_empty() || target.namespace.is_some();
        let is_namespace = facts.is_namespace;
        Ok(match self.scope.as_str() {
            "Cluster" => is_namespace || !has_namespace,
            "Namespaced" => !is_namespace && has_namespace,
            _ => true,
        })
    }

    fn namespaces_match(&self, _: &Target, facts: &Facts) -> Result<bool, String> {
        if self.namespaces.is_empty() {
            return Ok(true);
        }
        Ok(namespace_name(facts).is_none_or(|namespace| {
            self.namespaces
                .iter()
                .any(|n| wildcard::matches(n, namespace))
        }))
    }

    fn excluded_namespaces_match(&self, _: &Target, facts: &Facts) -> Result<bool, String> {
        if self.excluded_namespaces.is_empty() {
            return Ok(true);
        }
        Ok(namespace_name(facts).is_none_or(|namespace| {
            !self
                .excluded_namespaces
                .iter()
                .any(|n| wildcard::matches(n, namespace))
        }))
    }

    fn label_selector_match(&self, target: &Target, _: &Facts) -> Result<bool, String> {
        match &self.label_selector {
            None => Ok(true),
            Some(selector) => Ok(selector.as_ref()?.matches(labels_of(target.object))),
        }
    }

    fn namespace_selector_match(&self, target: &Target, facts: &Facts) -> Result<bool, String> {
        let Some(selector) = &self.namespace_selector else {
            return Ok(true);
        };
        let is_namespace = facts.is_namespace;
        if !is_namespace && target.namespace.is_none() && facts.namespace.is_empty() {
            return Ok(true);
        }
        let selector = selector.as_ref()?;
        if is_namespace {
            return Ok(selector.matches(labels_of(target.object)));
        }
        match target.namespace {
            None => {
                Err("namespace selector for namespace-scoped object but missing Namespace".into())
            }
            Some(namespace) => Ok(selector.matches(labels_of(namespace))),
        }
    }

    fn name_match(&self, _: &Target, facts: &Facts) -> Result<bool, String> {
        if self.name.is_empty() {
            return Ok(true);
        }
        Ok(wildcard::matches(&self.name, &facts.name)
            || wildcard::matches_generate_name(&self.name, &facts.generate_name))
    }

    fn source_match(&self, target: &Target, facts: &Facts) -> Result<bool, String> {
        let wanted = if self.source.is_empty() {
            "All"
        } else {
            self.source.as_str()
        };
        if !SOURCES.contains(&wanted) {
            return Err(format!("invalid source field {}", quote(wanted, false)));
        }
        if target.source.is_empty() && wanted != "All" {
            return Err(format!(
                "source field not specified for resource {}",
                facts.name
            ));
        }
        if wanted == "All" {
            return Ok(true);
        }
        if !SOURCES.contains(&target.source) {
            return Err(format!(
                "invalid source field {}",
                quote(target.source, false)
            ));
        }
        Ok(wanted == target.source)
    }
}

/// The namespace name `namespaces`/`excludedNamespaces` compare, or `None` for a
/// cluster-scoped object, which those criteria cannot disqualify.
fn namespace_name(facts: &Facts) -> Option<&str> {
    if facts.is_namespace {
        return Some(&facts.name);
    }
    if let Some(namespace) = &facts.namespace_object {
        return Some(namespace);
    }
    Some(facts.namespace.as_str()).filter(|n| !n.is_empty())
}

fn is_namespace(gvk: &Gvk) -> bool {
    gvk.kind == "Namespace" && gvk.group.is_empty()
}

/// An unstructured string accessor: `""` when missing or not a string.
fn metadata_str<'a>(object: &'a Value, field: &str) -> &'a str {
    object
        .get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn kinds_of(value: Option<&Value>, path: &str) -> Result<Vec<Kinds>, String> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let Value::Array(items) = value else {
        return Err(restore_error(path, "slice from", value));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let item_path = format!("{path}[{i}]");
            if item.is_null() {
                return Ok(Kinds::default());
            }
            let fields = expect_map(item, &item_path, "struct from:")?;
            Ok(Kinds {
                api_groups: string_list(
                    fields.get("apiGroups"),
                    &format!("{item_path}.apiGroups"),
                )?,
                kinds: string_list(fields.get("kinds"), &format!("{item_path}.kinds"))?,
            })
        })
        .collect()
}

// Decoding as `runtime.DefaultUnstructuredConverter.FromUnstructured` does: `null` is the
// zero value, unknown fields are ignored, a wrong type is an error in its words.

/// The converter's error for a value that cannot become a struct, map or slice.
pub fn restore_error(path: &str, what: &str, value: &Value) -> String {
    let kind = match value {
        Value::Array(_) => "slice",
        Value::Object(_) => "map",
        other => go_type_name(other),
    };
    format!("{path}: cannot restore {what} {kind}")
}

/// A map for a struct (`what` = `"struct from:"`) or a Go map (`"map from"`).
pub fn expect_map<'a>(
    value: &'a Value,
    path: &str,
    what: &str,
) -> Result<&'a Map<String, Value>, String> {
    value
        .as_object()
        .ok_or_else(|| restore_error(path, what, value))
}

/// A string field; `null` is `""`.
pub fn string_of(value: &Value, path: &str) -> Result<String, String> {
    match value {
        Value::Null => Ok(String::new()),
        Value::String(s) => Ok(s.clone()),
        other => Err(format!(
            "{path}: cannot convert {} to string",
            go_type_name(other)
        )),
    }
}

/// A list of strings; missing or `null` is empty.
pub fn string_list(value: Option<&Value>, path: &str) -> Result<Vec<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| string_of(item, &format!("{path}[{i}]")))
            .collect(),
        Some(other) => Err(restore_error(path, "slice from", other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_label_selectors_read_the_object_beyond_its_facts() {
        let reads = |spec: Value| Match::from_spec(Some(&spec)).unwrap().reads_object();
        let selector = json!({"matchLabels": {"tier": "web"}});
        assert!(reads(json!({"labelSelector": selector})));
        assert!(reads(json!({"namespaceSelector": selector})));
        let by_facts = json!({"kinds": [{"apiGroups": ["*"], "kinds": ["Pod"]}],
            "scope": "Namespaced", "namespaces": ["a-*"], "excludedNamespaces": ["b"],
            "name": "web-*", "source": "All"});
        assert!(!reads(by_facts));
        assert!(!Match::default().reads_object());
    }

    fn matches(spec: Value, object: Value) -> Result<bool, String> {
        Match::from_spec(Some(&spec))?.matches(&Target {
            object: &object,
            namespace: None,
            source: "Original",
        })
    }

    #[test]
    fn an_absent_match_matches_everything() {
        let object = json!({"kind": "Pod", "metadata": {"name": "p", "namespace": "x"}});
        for spec in [None, Some(&Value::Null)] {
            let m = Match::from_spec(spec).unwrap();
            assert!(!m.uses_namespace_selector());
            assert_eq!(
                m.matches(&Target {
                    object: &object,
                    namespace: None,
                    source: ""
                }),
                Ok(true)
            );
        }
    }

    #[test]
    fn wrong_types_are_errors_and_unknown_fields_are_ignored() {
        assert_eq!(
            Match::from_spec(Some(&json!("x"))),
            Err("match: cannot restore struct from: string".into())
        );
        assert_eq!(
            Match::from_spec(Some(&json!({"kinds": "Pod"}))),
            Err("match.kinds: cannot restore slice from string".into())
        );
        assert_eq!(
            Match::from_spec(Some(&json!({"namespaces": [1]}))),
            Err("match.namespaces[0]: cannot convert int64 to string".into())
        );
        assert!(Match::from_spec(Some(&json!({"labelSelector": []}))).is_err());
        assert_eq!(
            Match::from_spec(Some(&json!({"unknown": 1, "scope": null, "kinds": [null]})))
                .map(|m| m.kinds.len()),
            Ok(1)
        );
    }

    #[test]
    fn invalid_selectors_fail_only_when_evaluated() {
        let spec = json!({"kinds": [{"kinds": ["Other"]}], "labelSelector": {"matchLabels": {"a b": "c"}}});
        let m = Match::from_spec(Some(&spec)).unwrap();
        let object = json!({"kind": "Pod", "metadata": {"name": "p"}});
        let target = Target {
            object: &object,
            namespace: None,
            source: "",
        };
        assert_eq!(m.matches(&target), Ok(false));
        let error = matches(
            json!({"labelSelector": {"matchLabels": {"a b": "c"}}}),
            object,
        )
        .unwrap_err();
        assert!(
            error.starts_with("failed to run Match criteria: key: Invalid value: \"a b\""),
            "{error}"
        );
    }

    #[test]
    fn unknown_sources_fail_at_match_time() {
        let object = json!({"kind": "Pod", "metadata": {"name": "p"}});
        assert_eq!(
            matches(json!({"source": "Everything"}), object.clone()),
            Err("failed to run Match criteria: invalid source field \"Everything\"".into())
        );
        let m = Match::from_spec(Some(&json!({"source": "Original"}))).unwrap();
        let target = Target {
            object: &object,
            namespace: None,
            source: "Elsewhere",
        };
        assert_eq!(
            m.matches(&target),
            Err("failed to run Match criteria: invalid source field \"Elsewhere\"".into())
        );
        assert_eq!(matches(json!({"source": "All"}), object), Ok(true));
    }

    #[test]
    fn non_string_labels_count_as_no_labels() {
        let object =
            json!({"kind": "Pod", "metadata": {"name": "p", "labels": {"a": "b", "n": 1}}});
        assert_eq!(
            matches(
                json!({"labelSelector": {"matchLabels": {"a": "b"}}}),
                object.clone()
            ),
            Ok(false)
        );
        assert_eq!(
            matches(
                json!({"labelSelector": {"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}}),
                object
            ),
            Ok(true)
        );
    }

    #[test]
    fn a_namespace_object_is_namespaced_only_by_its_own_name() {
        let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a", "labels": {"t": "a"}}});
        assert_eq!(
            matches(
                json!({"namespaces": ["team-*"], "scope": "Cluster"}),
                namespace.clone()
            ),
            Ok(true)
        );
        assert_eq!(
            matches(
                json!({"namespaceSelector": {"matchLabels": {"t": "a"}}}),
                namespace.clone()
            ),
            Ok(true)
        );
        assert_eq!(
            matches(json!({"namespaces": ["other"]}), namespace),
            Ok(false)
        );
        let grouped = json!({"apiVersion": "example.com/v1", "kind": "Namespace", "metadata": {"name": "team-a"}});
        assert_eq!(matches(json!({"namespaces": ["other"]}), grouped), Ok(true));
    }
}
