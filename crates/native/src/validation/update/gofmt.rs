//! Values as `field.Error` prints the Go structs of update errors: `%#v` (the pointer
//! dereferenced), e.g. `v1.LabelSelector{MatchLabels:map[string]string{"app":"web"},
//! MatchExpressions:[]v1.LabelSelectorRequirement(nil)}`.

use kadmit_go::strconv::quote;
use serde_json::Value;

/// `%#v` of a `map[string]string` (keys sorted, as fmt sorts them).
pub fn string_map(v: Option<&Value>) -> String {
    match v.and_then(Value::as_object) {
        None => "map[string]string(nil)".to_owned(),
        Some(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let inner: Vec<String> = entries
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}:{}",
                        quote(k, false),
                        quote(v.as_str().unwrap_or(""), false)
                    )
                })
                .collect();
            format!("map[string]string{{{}}}", inner.join(", "))
        }
    }
}

/// `%#v` of a `[]string` (`[]string(nil)` when absent).
pub fn string_slice(v: Option<&Value>) -> String {
    match v.and_then(Value::as_array) {
        None => "[]string(nil)".to_owned(),
        Some(items) => {
            let inner: Vec<String> = items
                .iter()
                .map(|s| quote(s.as_str().unwrap_or(""), false))
                .collect();
            format!("[]string{{{}}}", inner.join(", "))
        }
    }
}

/// `%#v` of a `metav1.LabelSelector`.
pub fn label_selector(selector: Option<&Value>) -> String {
    let Some(selector) = selector.filter(|s| !s.is_null()) else {
        return "null".to_owned();
    };
    let expressions = match selector.get("matchExpressions").and_then(Value::as_array) {
        None => "[]v1.LabelSelectorRequirement(nil)".to_owned(),
        Some(items) => {
            let inner: Vec<String> = items
                .iter()
                .map(|r| {
                    format!(
                        "v1.LabelSelectorRequirement{{Key:{}, Operator:{}, Values:{}}}",
                        quote(r.get("key").and_then(Value::as_str).unwrap_or(""), false),
                        quote(
                            r.get("operator").and_then(Value::as_str).unwrap_or(""),
                            false
                        ),
                        string_slice(r.get("values"))
                    )
                })
                .collect();
            format!("[]v1.LabelSelectorRequirement{{{}}}", inner.join(", "))
        }
    };
    format!(
        "v1.LabelSelector{{MatchLabels:{}, MatchExpressions:{expressions}}}",
        string_map(selector.get("matchLabels"))
    )
}

/// `%#v` of an `rbac.RoleRef`.
pub fn role_ref(role_ref: Option<&Value>) -> String {
    let field = |k: &str| {
        quote(
            role_ref
                .and_then(|r| r.get(k))
                .and_then(Value::as_str)
                .unwrap_or(""),
            false,
        )
    };
    format!(
        "rbac.RoleRef{{APIGroup:{}, Kind:{}, Name:{}}}",
        field("apiGroup"),
        field("kind"),
        field("name")
    )
}
