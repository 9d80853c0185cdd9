//! AssignImage: rewrites the domain, path and/or tag of an image reference, keeping the
//! parts it does not set.

use super::spec;
use super::{check_key_not_changed, starts_at_metadata, tests_and_apply_to, Action, Built};
use crate::engines::gatekeeper::edits::Written;
use crate::engines::gatekeeper::image;
use crate::engines::gatekeeper::path::Node;
use crate::engines::gatekeeper::walk::Setter;
use serde_json::{Map, Value};

pub struct AssignImage {
    domain: String,
    path: String,
    tag: String,
}

pub fn build(name: &str, spec: &Value) -> Result<Built, String> {
    let path = spec::location(spec, |loc, e| {
        format!("invalid location format `{loc}` for assignImage {name}: {e}")
    })?;
    if starts_at_metadata(&path) {
        return Err(format!("assignImage {name} can't change metadata"));
    }
    if let Some(Node::List { .. }) = path.nodes.last() {
        return Err(format!("assignImage {name} cannot mutate list-type fields"));
    }
    check_key_not_changed(&path)?;
    let parameter = |field: &str| spec::string_at(spec, &["parameters", field]).to_owned();
    let action = AssignImage {
        domain: parameter("assignDomain"),
        path: parameter("assignPath"),
        tag: parameter("assignTag"),
    };
    image::validate_parts(&action.domain, &action.path, &action.tag)
        .map_err(|e| format!("assignImage {name} has invalid parameters: {}", e.message))?;
    let (tester, apply_to) = tests_and_apply_to("AssignImage", name, spec, &path)?;
    Ok(Built {
        apply_to: Some(apply_to),
        path,
        tester,
        action: Action::AssignImage(action),
    })
}

impl Setter for AssignImage {
    fn set_value(&self, map: &mut Map<String, Value>, key: &str) -> Result<Written, String> {
        let current =
            match map.get(key) {
                None => None,
                Some(Value::String(s)) => Some(s.as_str()),
                // Gatekeeper's message, including its blank type name (a shadowed variable).
                Some(_) => return Err(
                    "expected value at AssignImage location to be a string, got  of type string"
                        .into(),
                ),
            };
        let assigned = image::parse(current.unwrap_or(""))
            .assign(&self.domain, &self.path, &self.tag)
            .to_string();
        if current == Some(assigned.as_str()) {
            return Ok(Written::Nothing);
        }
        Ok(Written::Replaced(
            map.insert(key.to_owned(), Value::String(assigned)),
        ))
    }
}
