//! Kubernetes `metav1.LabelSelector`: `matchLabels` plus `matchExpressions`
//! (In/NotIn/Exists/DoesNotExist), validated the way `metav1.LabelSelectorAsSelector`
//! and `labels.NewRequirement` validate, with their error texts.

use super::matching::{expect_map, restore_error, string_list, string_of};
use kadmit_go::strconv::quote;
use kadmit_schema::objectmeta::{label_value_errors, qualified_name_errors};
use serde_json::{Map, Value};

/// A label selector as written: decoded, not yet validated.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LabelSelector {
    pub match_labels: Vec<(String, String)>,
    pub match_expressions: Vec<Expression>,
}

/// One `matchExpressions` entry.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Expression {
    pub key: String,
    pub operator: String,
    pub values: Vec<String>,
}

/// A validated selector: every requirement must hold. No requirements matches everything.
#[derive(Debug, Clone, PartialEq)]
pub struct Selector {
    requirements: Vec<Requirement>,
}

#[derive(Debug, Clone, PartialEq)]
struct Requirement {
    key: String,
    operator: Operator,
    values: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

impl LabelSelector {
    /// Decodes a selector (`null` is the caller's "not set"); wrong types are errors,
    /// unknown fields are ignored. `path` names the field in error messages.
    pub fn from_value(value: &Value, path: &str) -> Result<LabelSelector, String> {
        let map = expect_map(value, path, "struct from:")?;
        let mut selector = LabelSelector::default();
        if let Some(labels) = map.get("matchLabels").filter(|v| !v.is_null()) {
            let labels_path = format!("{path}.matchLabels");
            for (key, value) in expect_map(labels, &labels_path, "map from")? {
                let value = string_of(value, &format!("{labels_path}.{key}"))?;
                selector.match_labels.push((key.clone(), value));
            }
            // Go walks the map in random order; sorted, the first invalid key is stable.
            selector.match_labels.sort();
        }
        if let Some(expressions) = map.get("matchExpressions").filter(|v| !v.is_null()) {
            let list_path = format!("{path}.matchExpressions");
            let Value::Array(items) = expressions else {
                return Err(restore_error(&list_path, "slice from", expressions));
            };
            for (i, item) in items.iter().enumerate() {
                let item_path = format!("{list_path}[{i}]");
                let fields = expect_map(item, &item_path, "struct from:")?;
                let field = |name: &str| -> Result<String, String> {
                    fields.get(name).map_or(Ok(String::new()), |v| {
                        string_of(v, &format!("{item_path}.{name}"))
                    })
                };
                selector.match_expressions.push(Expression {
                    key: field("key")?,
                    operator: field("operator")?,
                    values: string_list(fields.get("values"), &format!("{item_path}.values"))?,
                });
            }
        }
        Ok(selector)
    }

    /// `metav1.LabelSelectorAsSelector`: the first invalid requirement is the error.
    pub fn to_selector(&self) -> Result<Selector, String> {
        let mut requirements = Vec::new();
        for (key, value) in &self.match_labels {
            let values = vec![value.clone()];
            validate_requirement(key, Operator::In, &values)?;
            requirements.push(Requirement {
                key: key.clone(),
                operator: Operator::In,
                values,
            });
        }
        for expression in &self.match_expressions {
            let operator = match expression.operator.as_str() {
                "In" => Operator::In,
                "NotIn" => Operator::NotIn,
                "Exists" => Operator::Exists,
                "DoesNotExist" => Operator::DoesNotExist,
                other => {
                    return Err(format!(
                        "{} is not a valid label selector operator",
                        quote(other, false)
                    ))
                }
            };
            validate_requirement(&expression.key, operator, &expression.values)?;
            requirements.push(Requirement {
                key: expression.key.clone(),
                operator,
                values: expression.values.clone(),
            });
        }
        Ok(Selector { requirements })
    }
}

impl Selector {
    /// Decodes and validates in one step.
    pub fn parse(value: &Value) -> Result<Selector, String> {
        LabelSelector::from_value(value, "labelSelector")?.to_selector()
    }

    /// `labels.Selector.Empty()`: no requirement, so every label set matches.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether a label set satisfies every requirement; `None` is an empty label set.
    pub fn matches(&self, labels: Option<&Map<String, Value>>) -> bool {
        self.requirements.iter().all(|r| {
            let value = labels.and_then(|l| l.get(&r.key));
            let has_value = value
                .and_then(Value::as_str)
                .is_some_and(|v| r.values.iter().any(|w| w == v));
            match r.operator {
                Operator::In => has_value,
                Operator::NotIn => !has_value,
                Operator::Exists => value.is_some(),
                Operator::DoesNotExist => value.is_none(),
            }
        })
    }
}

/// `labels.Set(obj.GetLabels())`: `metadata.labels` when it is a map of strings; any
/// non-string value makes the unstructured accessor give up, leaving no labels at all.
pub fn labels_of(object: &Value) -> Option<&Map<String, Value>> {
    let metadata = super::values::field(object.as_object()?, "metadata")?;
    super::values::field(metadata.as_object()?, "labels")?
        .as_object()
        .filter(|labels| labels.values().all(Value::is_string))
}

/// `labels.NewRequirement`'s checks; several failures aggregate as `[a, b]`. A
/// `matchLabels` entry is an Equals requirement, which always has its one value.
fn validate_requirement(key: &str, operator: Operator, values: &[String]) -> Result<(), String> {
    let mut errors = Vec::new();
    let key_errors = qualified_name_errors(key);
    if !key_errors.is_empty() {
        errors.push(format!(
            "key: Invalid value: {}: {}",
            quote(key, false),
            key_errors.join("; ")
        ));
    }
    let detail = match operator {
        Operator::In | Operator::NotIn if values.is_empty() => {
            Some("for 'in', 'notin' operators, values set can't be empty")
        }
        Operator::Exists | Operator::DoesNotExist if !values.is_empty() => {
            Some("values set must be empty for exists and does not exist")
        }
        _ => None,
    };
    if let Some(detail) = detail {
        errors.push(format!(
            "values: Invalid value: {}: {detail}",
            go_string_slice(values)
        ));
    }
    for (i, value) in values.iter().enumerate() {
        let value_errors = label_value_errors(value);
        if !value_errors.is_empty() {
            errors.push(format!(
                "values[{i}][{key}]: Invalid value: {}: {}",
                quote(value, false),
                value_errors.join("; ")
            ));
        }
    }
    match errors.len() {
        0 => Ok(()),
        1 => Err(errors.remove(0)),
        _ => Err(format!("[{}]", errors.join(", "))),
    }
}

/// `%#v` of the `[]string` handed to `NewRequirement`: `append([]string(nil), values...)`
/// is nil when there are no values.
fn go_string_slice(values: &[String]) -> String {
    if values.is_empty() {
        return "[]string(nil)".to_owned();
    }
    let quoted: Vec<String> = values.iter().map(|v| quote(v, false)).collect();
    format!("[]string{{{}}}", quoted.join(", "))
}

#[cfg(test)]
mod tests {
    const QUALIFIED_NAME_MESSAGE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    use super::*;
    use serde_json::json;

    fn labels(value: &Value) -> Option<&Map<String, Value>> {
        value.as_object()
    }

    fn error_of(selector: Value) -> String {
        Selector::parse(&selector).expect_err("selector should be invalid")
    }

    #[test]
    fn an_empty_selector_matches_everything() {
        let selector = Selector::parse(&json!({})).unwrap();
        assert!(selector.matches(None));
        assert!(selector.matches(labels(&json!({"a": "b"}))));
    }

    #[test]
    fn operators_follow_kubernetes_semantics() {
        let selector = Selector::parse(&json!({
            "matchLabels": {"app": "web"},
            "matchExpressions": [
                {"key": "tier", "operator": "In", "values": ["a", "b"]},
                {"key": "env", "operator": "NotIn", "values": ["prod"]},
                {"key": "team", "operator": "Exists"},
                {"key": "legacy", "operator": "DoesNotExist"},
            ],
        }))
        .unwrap();
        let base = json!({"app": "web", "tier": "b", "team": ""});
        assert!(selector.matches(labels(&base)));
        let mut env_dev = base.clone();
        env_dev["env"] = json!("dev");
        assert!(selector.matches(labels(&env_dev)));
        for (key, value) in [
            ("env", "prod"),
            ("legacy", ""),
            ("tier", "c"),
            ("app", "db"),
        ] {
            let mut changed = base.clone();
            changed[key] = json!(value);
            assert!(!selector.matches(labels(&changed)), "{key}={value}");
        }
        let mut no_team = base.clone();
        no_team.as_object_mut().unwrap().remove("team");
        assert!(!selector.matches(labels(&no_team)));
    }

    #[test]
    fn an_unknown_operator_is_named_with_go_quoting() {
        assert_eq!(
            error_of(json!({"matchExpressions": [{"key": "", "operator": "Invalid"}]})),
            "\"Invalid\" is not a valid label selector operator"
        );
    }

    #[test]
    fn operator_value_counts_are_checked() {
        assert_eq!(
            error_of(json!({"matchExpressions": [{"key": "a", "operator": "In"}]})),
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"
        );
        assert_eq!(
            error_of(json!({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x", "y"]}]})),
            "values: Invalid value: []string{\"x\", \"y\"}: values set must be empty for exists and does not exist"
        );
    }

    #[test]
    fn keys_must_be_qualified_names() {
        assert_eq!(
            error_of(json!({"matchLabels": {"bad key": "v"}})),
            format!("key: Invalid value: \"bad key\": name part {QUALIFIED_NAME_MESSAGE}")
        );
        assert_eq!(
            error_of(json!({"matchExpressions": [{"key": "", "operator": "Exists"}]})),
            format!("key: Invalid value: \"\": name part must be non-empty; name part {QUALIFIED_NAME_MESSAGE}")
        );
        assert!(
            error_of(json!({"matchLabels": {"Example.com/x": "v"}})).starts_with(
                "key: Invalid value: \"Example.com/x\": prefix part a lowercase RFC 1123 subdomain"
            )
        );
        assert!(error_of(json!({"matchLabels": {"a/b/c": "v"}}))
            .contains(": a qualified name must consist of"));
        assert!(
            error_of(json!({"matchLabels": {"/x": "v"}})).contains("prefix part must be non-empty")
        );
        let long = "n".repeat(64);
        assert_eq!(
            error_of(json!({"matchLabels": {long.clone(): "v"}})),
            format!("key: Invalid value: \"{long}\": name part must be no more than 63 characters")
        );
        Selector::parse(&json!({"matchLabels": {"app.kubernetes.io/name": "x"}})).unwrap();
    }

    #[test]
    fn values_must_be_label_values_and_errors_aggregate() {
        Selector::parse(&json!({"matchLabels": {"a": ""}})).unwrap();
        assert_eq!(
            error_of(json!({"matchLabels": {"a": "-x"}})),
            "values[0][a]: Invalid value: \"-x\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        );
        let error = error_of(
            json!({"matchExpressions": [{"key": "a b", "operator": "NotIn", "values": ["ok", "no good"]}]}),
        );
        assert!(
            error.starts_with("[key: Invalid value: \"a b\": "),
            "{error}"
        );
        assert!(
            error.contains(", values[1][a b]: Invalid value: \"no good\": "),
            "{error}"
        );
        assert!(error.ends_with("]"));
    }

    #[test]
    fn wrong_types_are_decode_errors() {
        assert!(LabelSelector::from_value(&json!("x"), "labelSelector").is_err());
        assert!(
            LabelSelector::from_value(&json!({"matchLabels": {"a": 1}}), "labelSelector").is_err()
        );
        assert!(
            LabelSelector::from_value(&json!({"matchExpressions": {}}), "labelSelector").is_err()
        );
        assert_eq!(
            LabelSelector::from_value(&json!({"matchLabels": null, "extra": 1}), "labelSelector"),
            Ok(LabelSelector::default())
        );
    }

    #[test]
    fn non_string_label_values_hide_every_label() {
        assert!(labels_of(&json!({"metadata": {"labels": {"a": "b"}}})).is_some());
        assert!(labels_of(&json!({"metadata": {"labels": {"a": "b", "n": 1}}})).is_none());
    }
}
