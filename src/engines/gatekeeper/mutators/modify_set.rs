//! ModifySet: treats the list at a location as a set, adding (`merge`) or removing
//! (`prune`) values; elements compare deeply, numbers by value.

use super::spec;
use super::{starts_at_metadata, tests_and_apply_to, Action, Built};
use crate::engines::gatekeeper::edits::Written;
use crate::engines::gatekeeper::path::Node;
use crate::engines::gatekeeper::values::{self, go_type_name};
use crate::engines::gatekeeper::walk::Setter;
use kadmit_go::fmt::format_value;
use serde_json::{Map, Value};

pub struct ModifySet {
    operation: Operation,
    /// `values.fromList`; `None` when absent (merge then sets the field to null).
    from_list: Option<Vec<Value>>,
}

#[derive(Clone, Copy)]
enum Operation {
    Merge,
    Prune,
}

pub fn build(name: &str, spec: &Value) -> Result<Built, String> {
    let path = spec::location(spec, |loc, e| {
        format!("invalid location format `{loc}` for ModifySet {name}: {e}")
    })?;
    if starts_at_metadata(&path) {
        return Err(format!("modifyset {name} can't change metadata"));
    }
    if let Some(Node::List { .. }) = path.nodes.last() {
        return Err("final node in a modifyset location cannot be a keyed list".into());
    }
    let (tester, apply_to) = tests_and_apply_to("ModifySet", name, spec, &path)?;
    // The CRD defaults `operation` to merge; kadmit applies that default (gator does not).
    let operation = match spec.pointer("/parameters/operation") {
        None | Some(Value::Null) => Operation::Merge,
        Some(Value::String(s)) if s == "merge" => Operation::Merge,
        Some(Value::String(s)) if s == "prune" => Operation::Prune,
        Some(other) => {
            return Err(format!(
                "unrecognized operation for modifyset: {} (must be merge or prune)",
                format_value(other)
            ))
        }
    };
    let from_list = match spec.pointer("/parameters/values/fromList") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) => Some(items.clone()),
        Some(other) => {
            return Err(format!(
                "invalid ModifySet {name}: values.fromList must be a list, got {}",
                go_type_name(other)
            ))
        }
    };
    Ok(Built {
        apply_to: Some(apply_to),
        path,
        tester,
        action: Action::ModifySet(ModifySet {
            operation,
            from_list,
        }),
    })
}

impl Setter for ModifySet {
    fn set_value(&self, map: &mut Map<String, Value>, key: &str) -> Result<Written, String> {
        let wanted = self.from_list.as_deref().unwrap_or(&[]);
        let Some(existing) = map.get_mut(key) else {
            if let Operation::Prune = self.operation {
                return Ok(Written::Nothing);
            }
            let value = self.from_list.clone().map_or(Value::Null, Value::Array);
            map.insert(key.to_owned(), value);
            return Ok(Written::Replaced(None));
        };
        // Gatekeeper stores a typed nil list when merging no values into a missing field;
        // it prints as null and is still a set on the next round of the loop.
        if existing.is_null() && self.from_list.is_none() {
            return Ok(Written::Nothing);
        }
        let Value::Array(items) = existing else {
            return Err(format!(
                "{} is not a list of values, cannot treat it as a set",
                format_value(existing)
            ));
        };
        let listed = |item: &Value| wanted.iter().any(|value| values::equal(item, value));
        Ok(match self.operation {
            Operation::Merge => {
                let len = items.len();
                for value in wanted {
                    if !items.iter().any(|item| values::equal(item, value)) {
                        items.push(value.clone());
                    }
                }
                match items.len() == len {
                    true => Written::Nothing,
                    false => Written::Appended(len),
                }
            }
            Operation::Prune if items.iter().any(listed) => {
                let old = items.clone();
                items.retain(|item| !listed(item));
                Written::Replaced(Some(Value::Array(old)))
            }
            Operation::Prune => Written::Nothing,
        })
    }
}
