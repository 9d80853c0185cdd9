//! The ExpansionTemplate resource (`apis/expansion/unversioned`), read the way gator's
//! unstructured converter reads it, and Gatekeeper's `ValidateTemplate`.

use crate::engines::gatekeeper::values::go_type_name;
use crate::engines::gatekeeper::Gvk;
use serde_json::{Map, Value};

/// One `applyTo` entry: it covers every combination of its groups, versions and kinds.
/// Matching is exact string membership; an ExpansionTemplate has no operations.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GvkSet {
    pub groups: Vec<String>,
    pub versions: Vec<String>,
    pub kinds: Vec<String>,
}

impl GvkSet {
    pub fn matches(&self, gvk: &Gvk) -> bool {
        self.groups.contains(&gvk.group)
            && self.versions.contains(&gvk.version)
            && self.kinds.contains(&gvk.kind)
    }

    /// The covered GVKs in Gatekeeper's loop order (groups, then versions, then kinds).
    pub fn gvks(&self) -> impl Iterator<Item = Gvk> + '_ {
        self.groups.iter().flat_map(move |group| {
            self.versions.iter().flat_map(move |version| {
                self.kinds.iter().map(move |kind| Gvk {
                    group: group.clone(),
                    version: version.clone(),
                    kind: kind.clone(),
                })
            })
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Template {
    pub name: String,
    pub apply_to: Vec<GvkSet>,
    /// A dotted path into the generator, split on every `.` (no quoting).
    pub template_source: String,
    pub generated: Gvk,
    /// Carried into each resultant; it only matters to validation (`gator test`).
    pub enforcement_action: String,
}

impl Template {
    /// Reads an ExpansionTemplate document and validates it.
    pub fn from_value(value: &Value) -> Result<Template, String> {
        let template = Template::convert(value)?;
        template.validate()?;
        Ok(template)
    }

    /// Reads an ExpansionTemplate document without validating it, as gator's unstructured
    /// converter does: unknown fields are ignored, absent or null ones are empty, and
    /// wrongly typed ones fail with the converter's message (`cannot convert int64 to string`).
    pub fn convert(value: &Value) -> Result<Template, String> {
        let root = object(Some(value))?;
        let metadata = object(root.and_then(|r| r.get("metadata")))?;
        let spec = object(root.and_then(|r| r.get("spec")))?;
        let field =
            |map: Option<&Map<String, Value>>, key: &str| string(map.and_then(|m| m.get(key)));
        let generated = object(spec.and_then(|s| s.get("generatedGVK")))?;
        Ok(Template {
            name: field(metadata, "name")?,
            apply_to: list(spec.and_then(|s| s.get("applyTo")))?
                .iter()
                .map(gvk_set)
                .collect::<Result<_, _>>()?,
            template_source: field(spec, "templateSource")?,
            generated: Gvk {
                group: field(generated, "group")?,
                version: field(generated, "version")?,
                kind: field(generated, "kind")?,
            },
            enforcement_action: field(spec, "enforcementAction")?,
        })
    }

    /// Gatekeeper's `ValidateTemplate`, in its order.
    pub fn validate(&self) -> Result<(), String> {
        let name = &self.name;
        if name.is_empty() {
            return Err("ExpansionTemplate has empty name field".into());
        }
        if name.len() >= 64 {
            return Err("ExpansionTemplate name must be less than 64 characters".into());
        }
        if self.template_source.is_empty() {
            return Err(format!("ExpansionTemplate {name} has empty source field"));
        }
        if self.generated == Gvk::default() {
            return Err(format!(
                "ExpansionTemplate {name} has empty generatedGVK field"
            ));
        }
        if self.apply_to.is_empty() {
            return Err(format!("ExpansionTemplate {name} must specify ApplyTo"));
        }
        if self.applies_to(&self.generated) {
            return Err(format!(
                "ExpansionTemplate {name} generates GVK {}, but also applies to that same GVK",
                gvk_string(&self.generated)
            ));
        }
        Ok(())
    }

    pub fn applies_to(&self, gvk: &Gvk) -> bool {
        self.apply_to.iter().any(|set| set.matches(gvk))
    }

    /// Every GVK of every `applyTo` entry, repeats included.
    pub fn apply_to_gvks(&self) -> impl Iterator<Item = Gvk> + '_ {
        self.apply_to.iter().flat_map(GvkSet::gvks)
    }
}

/// Go's `schema.GroupVersionKind.String()`: `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`.
pub fn gvk_string(gvk: &Gvk) -> String {
    format!("{}/{}, Kind={}", gvk.group, gvk.version, gvk.kind)
}

fn gvk_set(entry: &Value) -> Result<GvkSet, String> {
    let entry = object(Some(entry))?;
    let strings = |key: &str| {
        list(entry.and_then(|e| e.get(key)))?
            .iter()
            .map(|v| string(Some(v)))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(GvkSet {
        groups: strings("groups")?,
        versions: strings("versions")?,
        kinds: strings("kinds")?,
    })
}

fn string(value: Option<&Value>) -> Result<String, String> {
    match value {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(format!("cannot convert {} to string", go_type_name(other))),
    }
}

fn object(value: Option<&Value>) -> Result<Option<&Map<String, Value>>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(other) => Err(format!("cannot restore struct from: {}", go_kind(other))),
    }
}

fn list(value: Option<&Value>) -> Result<&[Value], String> {
    match value {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(other) => Err(format!("cannot restore slice from {}", go_kind(other))),
    }
}

/// Go's `reflect.Kind` name of a decoded JSON value.
fn go_kind(value: &Value) -> &'static str {
    match value {
        Value::Object(_) => "map",
        Value::Array(_) => "slice",
        other => go_type_name(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn template(spec: Value) -> Value {
        json!({"apiVersion": "expansion.gatekeeper.sh/v1beta1", "kind": "ExpansionTemplate",
               "metadata": {"name": "t"}, "spec": spec})
    }

    #[test]
    fn applyto_is_the_cross_product_in_go_loop_order() {
        let set = GvkSet {
            groups: vec!["a".into(), "b".into()],
            versions: vec!["v1".into()],
            kinds: vec!["X".into(), "Y".into()],
        };
        let names: Vec<String> = set
            .gvks()
            .map(|g| format!("{}/{}", g.group, g.kind))
            .collect();
        assert_eq!(names, ["a/X", "a/Y", "b/X", "b/Y"]);
        assert!(!GvkSet {
            groups: vec!["*".into()],
            ..set.clone()
        }
        .matches(&Gvk {
            group: "a".into(),
            version: "v1".into(),
            kind: "X".into()
        }));
    }

    #[test]
    fn wrong_types_fail_like_the_unstructured_converter() {
        let bad = |spec: Value| Template::from_value(&template(spec)).unwrap_err();
        assert_eq!(
            bad(json!({"templateSource": 5})),
            "cannot convert int64 to string"
        );
        assert_eq!(
            bad(json!({"applyTo": {"groups": []}})),
            "cannot restore slice from map"
        );
        assert_eq!(
            bad(json!({"generatedGVK": "Pod"})),
            "cannot restore struct from: string"
        );
        assert_eq!(
            bad(json!({"applyTo": [{"kinds": [true]}]})),
            "cannot convert bool to string"
        );
    }

    #[test]
    fn nulls_read_as_empty_and_enforcement_action_is_kept() {
        let t = Template::from_value(&template(json!({
            "applyTo": [{"groups": ["apps"], "versions": ["v1"], "kinds": ["Deployment"], "operations": ["CREATE"]}],
            "templateSource": "spec.template",
            "generatedGVK": {"group": null, "version": "v1", "kind": "Pod"},
            "enforcementAction": "warn",
        })))
        .unwrap();
        assert_eq!(t.generated.group, "");
        assert_eq!(t.enforcement_action, "warn");
        assert!(Template::from_value(&json!(null))
            .unwrap_err()
            .ends_with("empty name field"));
    }

    #[test]
    fn a_name_of_63_bytes_is_the_longest_allowed() {
        let mut t = Template {
            name: "a".repeat(63),
            apply_to: vec![GvkSet::default()],
            template_source: "spec".into(),
            generated: Gvk {
                kind: "Pod".into(),
                ..Gvk::default()
            },
            ..Template::default()
        };
        assert_eq!(t.validate(), Ok(()));
        t.name.push('a');
        assert!(t.validate().is_err());
    }
}
