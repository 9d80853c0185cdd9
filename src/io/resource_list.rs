//! The KRM functions wire format: `config.kubernetes.io/v1` (or `v1beta1`) `ResourceList`.

use serde_json::Value;

pub const API_VERSIONS: &[&str] = &["config.kubernetes.io/v1", "config.kubernetes.io/v1beta1"];

/// A decoded `ResourceList`: its items and its function configuration.
#[derive(Debug)]
pub struct ResourceList {
    pub items: Vec<Value>,
    pub function_config: Option<Value>,
}

/// Whether a document is a `ResourceList` (the KRM function input).
pub fn is_resource_list(value: &Value) -> bool {
    value.get("kind").and_then(Value::as_str) == Some("ResourceList")
        && value
            .get("apiVersion")
            .and_then(Value::as_str)
            .is_some_and(|v| API_VERSIONS.contains(&v))
}

/// Takes a `ResourceList` apart; `items: null` or a missing list means no items.
pub fn unwrap(value: Value) -> Result<ResourceList, String> {
    let Value::Object(mut map) = value else {
        return Err("a ResourceList must be a mapping".into());
    };
    let items = match map.remove("items") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items,
        Some(_) => return Err("ResourceList items must be a sequence".into()),
    };
    let function_config = match map.remove("functionConfig") {
        None | Some(Value::Null) => None,
        Some(v @ Value::Object(_)) => Some(v),
        Some(_) => return Err("ResourceList functionConfig must be a mapping".into()),
    };
    Ok(ResourceList {
        items,
        function_config,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn recognises_both_versions_and_unwraps() {
        let list = json!({"apiVersion": "config.kubernetes.io/v1beta1", "kind": "ResourceList",
            "items": [{"a": 1}], "functionConfig": {"kind": "ConfigMap"}});
        assert!(is_resource_list(&list));
        let rl = unwrap(list).unwrap();
        assert_eq!(rl.items, vec![json!({"a": 1})]);
        assert!(rl.function_config.is_some());
        assert!(!is_resource_list(
            &json!({"apiVersion": "v1", "kind": "ResourceList"})
        ));
    }
}
