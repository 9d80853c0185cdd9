//! `applyTo` (`pkg/mutation/match/apply_to.go`): exact GVK membership plus the admission
//! operations a mutator runs for. The mutation webhook only runs CREATE and UPDATE.

use super::matching::{expect_map, restore_error, string_list};
use super::Gvk;
use kadmit_go::strconv::quote;
use serde_json::Value;

/// One `applyTo` entry. `operations: None` (omitted) covers every supported operation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ApplyTo {
    pub groups: Vec<String>,
    pub versions: Vec<String>,
    pub kinds: Vec<String>,
    pub operations: Option<Vec<String>>,
}

const SUPPORTED: [&str; 2] = ["CREATE", "UPDATE"];

/// `spec.applyTo` (missing or `null` is empty); wrong types are errors, unknown fields ignored.
pub fn from_spec(value: Option<&Value>) -> Result<Vec<ApplyTo>, String> {
    let path = "applyTo";
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
                return Ok(ApplyTo::default());
            }
            let fields = expect_map(item, &item_path, "struct from:")?;
            let list = |name: &str| string_list(fields.get(name), &format!("{item_path}.{name}"));
            let operations = match fields.get("operations") {
                None | Some(Value::Null) => None,
                Some(_) => Some(list("operations")?),
            };
            Ok(ApplyTo {
                groups: list("groups")?,
                versions: list("versions")?,
                kinds: list("kinds")?,
                operations,
            })
        })
        .collect()
}

/// Gatekeeper's constructor checks for Assign/ModifySet/AssignImage: empty list → `applyTo required for <Kind> mutator <name>`; an entry with empty groups/versions/kinds → `invalid applyTo for <Kind> mutator <name>, all of group, version and kind must be specified`; then operations (`invalid applyTo for <Kind> mutator <name>: ` + errors joined with `; `).
pub fn validate(entries: &[ApplyTo], kind: &str, name: &str) -> Result<(), String> {
    if entries.is_empty() {
        return Err(format!("applyTo required for {kind} mutator {name}"));
    }
    if entries
        .iter()
        .any(|e| e.groups.is_empty() || e.versions.is_empty() || e.kinds.is_empty())
    {
        return Err(format!(
            "invalid applyTo for {kind} mutator {name}, all of group, version and kind must be specified"
        ));
    }
    validate_operations(entries).map_err(|errors| {
        format!(
            "invalid applyTo for {kind} mutator {name}: {}",
            errors.join("; ")
        )
    })
}

/// `ValidateOperations`: every problem of every entry, in order.
pub fn validate_operations(entries: &[ApplyTo]) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let operations = entry.operations.as_deref().unwrap_or_default();
        for (j, op) in operations.iter().enumerate() {
            if operations[..j].contains(op) {
                errors.push(format!(
                    "duplicate operation {} in applyTo[{i}].operations",
                    quote(op, false)
                ));
            }
            if op != "*" && !SUPPORTED.contains(&op.as_str()) {
                errors.push(format!(
                    "invalid operation {} in applyTo[{i}].operations: must be one of CREATE, UPDATE, *",
                    quote(op, false)
                ));
            }
        }
        if operations.len() > 1 && operations.iter().any(|op| op == "*") {
            errors.push(format!(
                "wildcard \"*\" in applyTo[{i}].operations must not be combined with other operations"
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// One entry must match both the GVK (exact strings) and the operation ("" = none, as gator/expansion pass).
pub fn matches(entries: &[ApplyTo], gvk: &Gvk, operation: &str) -> bool {
    entries
        .iter()
        .any(|e| e.matches_gvk(gvk) && e.matches_operation(operation))
}

impl ApplyTo {
    /// Exact membership of group, version and kind; `*` is an ordinary string here.
    pub fn matches_gvk(&self, gvk: &Gvk) -> bool {
        self.groups.contains(&gvk.group)
            && self.versions.contains(&gvk.version)
            && self.kinds.contains(&gvk.kind)
    }

    /// `MatchesOperation`: no operation (audit, expansion, gator) only matches entries
    /// that cover every supported operation.
    pub fn matches_operation(&self, operation: &str) -> bool {
        if operation.is_empty() {
            return SUPPORTED.iter().all(|op| self.covers(op));
        }
        SUPPORTED.contains(&operation) && self.covers(operation)
    }

    /// the operations this entry covers (CREATE/UPDATE), for schema bindings
    pub fn effective_operations(&self) -> Vec<&'static str> {
        SUPPORTED.into_iter().filter(|op| self.covers(op)).collect()
    }

    fn covers(&self, operation: &str) -> bool {
        match self.operations.as_deref() {
            None | Some([]) => true,
            Some(ops) => ops.iter().any(|op| op == "*" || op == operation),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entries(value: Value) -> Vec<ApplyTo> {
        from_spec(Some(&value)).unwrap()
    }

    #[test]
    fn decoding_keeps_omitted_operations_apart() {
        let parsed = entries(json!([
            {"groups": [""], "versions": ["v1"], "kinds": ["Pod"], "extra": true},
            {"groups": ["apps"], "versions": ["v1"], "kinds": ["Deployment"], "operations": ["CREATE"]},
        ]));
        assert_eq!(parsed[0].operations, None);
        assert_eq!(parsed[1].operations, Some(vec!["CREATE".to_owned()]));
        assert_eq!(from_spec(None), Ok(vec![]));
        assert_eq!(
            from_spec(Some(&json!({"groups": []}))),
            Err("applyTo: cannot restore slice from map".into())
        );
        assert_eq!(
            from_spec(Some(&json!([{"kinds": "Pod"}]))),
            Err("applyTo[0].kinds: cannot restore slice from string".into())
        );
    }

    #[test]
    fn constructor_checks_come_in_gatekeeper_order() {
        assert_eq!(
            validate(&[], "Assign", "a"),
            Err("applyTo required for Assign mutator a".into())
        );
        let partial =
            entries(json!([{"groups": [""], "kinds": ["Pod"], "operations": ["DELETE"]}]));
        assert_eq!(
            validate(&partial, "ModifySet", "m"),
            Err("invalid applyTo for ModifySet mutator m, all of group, version and kind must be specified".into())
        );
        let bad_ops = entries(json!([
            {"groups": [""], "versions": ["v1"], "kinds": ["Pod"], "operations": ["DELETE"]},
            {"groups": [""], "versions": ["v1"], "kinds": ["Pod"], "operations": ["*", "*"]},
        ]));
        assert_eq!(
            validate(&bad_ops, "AssignImage", "i"),
            Err("invalid applyTo for AssignImage mutator i: invalid operation \"DELETE\" in applyTo[0].operations: must be one of CREATE, UPDATE, *; duplicate operation \"*\" in applyTo[1].operations; wildcard \"*\" in applyTo[1].operations must not be combined with other operations".into())
        );
    }

    #[test]
    fn the_same_entry_must_match_gvk_and_operation() {
        let parsed = entries(json!([
            {"groups": [""], "versions": ["v1"], "kinds": ["Pod"], "operations": ["CREATE"]},
            {"groups": [""], "versions": ["v1"], "kinds": ["Service"], "operations": ["UPDATE"]},
        ]));
        let pod = Gvk {
            group: String::new(),
            version: "v1".into(),
            kind: "Pod".into(),
        };
        assert!(matches(&parsed, &pod, "CREATE"));
        assert!(!matches(&parsed, &pod, "UPDATE"));
        assert!(!matches(&parsed, &pod, ""));
    }

    #[test]
    fn effective_operations_are_the_supported_ones_covered() {
        let parsed = entries(json!([
            {"operations": ["UPDATE"]},
            {"operations": ["*"]},
            {},
            {"operations": ["DELETE"]},
        ]));
        let effective: Vec<_> = parsed.iter().map(ApplyTo::effective_operations).collect();
        assert_eq!(
            effective,
            vec![
                vec!["UPDATE"],
                vec!["CREATE", "UPDATE"],
                vec!["CREATE", "UPDATE"],
                vec![]
            ]
        );
    }
}
