//! Expanding one generator with one template (`expandResource` in `pkg/expansion/system.go`),
//! with the `unstructured` accessors it relies on and their quiet failure modes.

use super::template::Template;
use crate::engines::gatekeeper::values::go_type_name;
use crate::engines::gatekeeper::Gvk;
use kadmit_go::fmt::format_value;
use kadmit_go::strconv::quote;
use serde_json::{Map, Value};

/// The resultant of `generator` under `template`: a copy of the map at `templateSource`
/// with the generated GVK, a namespace, a `<generator>-<kind>` name and an owner reference.
/// `namespace` is the generator's Namespace object; without one the generator's own
/// `metadata.namespace` is copied, and an empty Namespace name leaves no namespace.
pub fn expand_resource(
    generator: &Value,
    namespace: Option<&Value>,
    template: &Template,
) -> Result<Value, String> {
    let source = &template.template_source;
    if source.is_empty() {
        return Err("cannot expand resource using a template with no source".into());
    }
    let gvk = &template.generated;
    if *gvk == Gvk::default() {
        return Err("cannot expand resource using template with empty generatedGVK".into());
    }
    let fields: Vec<&str> = source.split('.').collect();
    let content = nested_map(generator, &fields)
        .map_err(|e| format!("could not extract source field from unstructured: {e}"))?
        .ok_or_else(|| {
            format!(
                "could not find source field {} in resource {}",
                quote(source, false),
                name_of(generator)
            )
        })?;
    let api_version = match gvk.group.as_str() {
        "" => gvk.version.clone(),
        group => format!("{group}/{}", gvk.version),
    };
    let mut resultant = Map::new();
    resultant.insert("apiVersion".into(), Value::String(api_version));
    resultant.insert("kind".into(), Value::String(gvk.kind.clone()));
    for (key, value) in content {
        if key != "apiVersion" && key != "kind" {
            resultant.insert(key.clone(), value.clone());
        }
    }
    match namespace {
        Some(ns) => set_metadata_string(&mut resultant, "namespace", name_of(ns)),
        None => match nested_field(generator, &["metadata", "namespace"]) {
            Ok(None) => {}
            Ok(Some(Value::String(ns))) => set_metadata_string(&mut resultant, "namespace", ns),
            _ => {
                return Err(format!(
                    "could not extract namespace field {} in parent resource {}",
                    quote(source, false),
                    name_of(generator)
                ))
            }
        },
    }
    let mut name = name_of(generator).to_owned();
    if !gvk.kind.is_empty() {
        name.push('-');
        name.push_str(&gvk.kind);
    }
    let name: String = name.chars().flat_map(char::to_lowercase).collect();
    set_metadata_string(&mut resultant, "name", &name);
    ensure_owner_reference(&mut resultant, generator);
    if let Some(Value::Object(metadata)) = resultant.get_mut("metadata") {
        put_first(metadata, &["name", "namespace"]);
    }
    Ok(Value::Object(resultant))
}

/// Moves `keys` (those present) to the front of `map`, so output reads as people write it.
fn put_first(map: &mut Map<String, Value>, keys: &[&str]) {
    let mut front = Map::new();
    for key in keys {
        if let Some(value) = map.shift_remove(*key) {
            front.insert((*key).to_owned(), value);
        }
    }
    front.append(map);
    *map = front;
}

/// `metadata.name` when it is a string, else `""` (Go's `GetName`).
pub fn name_of(object: &Value) -> &str {
    string_at(object, &["metadata", "name"])
}

fn string_at<'a>(object: &'a Value, fields: &[&str]) -> &'a str {
    match nested_field(object, fields) {
        Ok(Some(Value::String(s))) => s,
        _ => "",
    }
}

/// `unstructured.NestedFieldNoCopy`: `None` when a step is missing or null, an error when
/// a step is not a map.
fn nested_field<'a>(object: &'a Value, fields: &[&str]) -> Result<Option<&'a Value>, String> {
    let mut value = object;
    for (i, field) in fields.iter().enumerate() {
        match value {
            Value::Null => return Ok(None),
            Value::Object(map) => match map.get(*field) {
                Some(next) => value = next,
                None => return Ok(None),
            },
            other => return Err(not_a_map(&fields[..=i], other)),
        }
    }
    Ok(Some(value))
}

/// `unstructured.NestedMap`: like `nested_field`, and the value found must be a map.
fn nested_map<'a>(
    object: &'a Value,
    fields: &[&str],
) -> Result<Option<&'a Map<String, Value>>, String> {
    match nested_field(object, fields)? {
        None => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(other) => Err(not_a_map(fields, other)),
    }
}

fn not_a_map(fields: &[&str], value: &Value) -> String {
    format!(
        ".{} accessor error: {} is of the type {}, expected map[string]interface{{}}",
        fields.join("."),
        format_value(value),
        go_type_name(value)
    )
}

/// `SetNamespace`/`SetName`: an empty value removes the field; a `metadata` that is present
/// but not a map makes the write a silent no-op, as the unstructured setters ignore it.
fn set_metadata_string(object: &mut Map<String, Value>, field: &str, value: &str) {
    if value.is_empty() {
        if let Some(Value::Object(metadata)) = object.get_mut("metadata") {
            metadata.shift_remove(field);
        }
    } else if let Some(metadata) = metadata_mut(object) {
        metadata.insert(field.into(), Value::String(value.into()));
    }
}

fn metadata_mut(object: &mut Map<String, Value>) -> Option<&mut Map<String, Value>> {
    match object
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()))
    {
        Value::Object(metadata) => Some(metadata),
        _ => None,
    }
}

/// `ensureOwnerReference`: appends `{apiVersion, kind, name, uid: ""}` of the parent unless
/// a reference to it exists. Writing back goes through `metav1.OwnerReference`, so the
/// existing references keep only their typed fields; a list that does not read as owner
/// references is replaced.
fn ensure_owner_reference(resultant: &mut Map<String, Value>, parent: &Value) {
    let api_version = string_at(parent, &["apiVersion"]);
    let kind = string_at(parent, &["kind"]);
    let name = name_of(parent);
    if api_version.is_empty() || kind.is_empty() || name.is_empty() {
        return;
    }
    let mut references = owner_references(resultant);
    let refers_to_parent = |r: &Map<String, Value>| {
        text(r, "apiVersion") == api_version && text(r, "kind") == kind && text(r, "name") == name
    };
    if references.iter().any(refers_to_parent) {
        return;
    }
    let mut parent_ref = Map::new();
    for (key, value) in [
        ("apiVersion", api_version),
        ("kind", kind),
        ("name", name),
        ("uid", ""),
    ] {
        parent_ref.insert(key.into(), Value::String(value.into()));
    }
    references.push(parent_ref);
    if let Some(metadata) = metadata_mut(resultant) {
        let list = references.into_iter().map(Value::Object).collect();
        metadata.insert("ownerReferences".into(), Value::Array(list));
    }
}

/// `GetOwnerReferences`, each reference normalised to what `metav1.OwnerReference` keeps.
fn owner_references(object: &Map<String, Value>) -> Vec<Map<String, Value>> {
    let found = object
        .get("metadata")
        .map(|metadata| nested_field(metadata, &["ownerReferences"]));
    let Some(Ok(Some(Value::Array(items)))) = found else {
        return Vec::new();
    };
    let mut references = Vec::with_capacity(items.len());
    for item in items {
        let Value::Object(item) = item else {
            return Vec::new();
        };
        let mut reference = Map::new();
        for key in ["apiVersion", "kind", "name", "uid"] {
            reference.insert(key.into(), Value::String(text(item, key).into()));
        }
        for key in ["controller", "blockOwnerDeletion"] {
            if let Some(flag @ Value::Bool(_)) = item.get(key) {
                reference.insert(key.into(), flag.clone());
            }
        }
        references.push(reference);
    }
    references
}

fn text<'a>(map: &'a Map<String, Value>, key: &str) -> &'a str {
    map.get(key).and_then(Value::as_str).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::gatekeeper::expansion::template::GvkSet;
    use serde_json::json;

    fn template(source: &str, group: &str, kind: &str) -> Template {
        Template {
            name: "t".into(),
            apply_to: vec![GvkSet::default()],
            template_source: source.into(),
            generated: Gvk {
                group: group.into(),
                version: "v1".into(),
                kind: kind.into(),
            },
            enforcement_action: String::new(),
        }
    }

    fn deployment(template: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "Web", "namespace": "prod"}, "spec": {"template": template}})
    }

    fn expand(generator: &Value, namespace: Option<&Value>) -> Result<Value, String> {
        expand_resource(generator, namespace, &template("spec.template", "", "Pod"))
    }

    #[test]
    fn existing_owner_references_are_kept_typed_and_not_duplicated() {
        let refs = json!([
            {"apiVersion": "v1", "kind": "X", "name": "x", "uid": "1", "controller": true, "extra": 1},
            {"apiVersion": "apps/v1", "kind": "Deployment", "name": "Other", "blockOwnerDeletion": "yes"}
        ]);
        let got = expand(
            &deployment(json!({"metadata": {"ownerReferences": refs}})),
            None,
        )
        .unwrap();
        assert_eq!(
            got["metadata"]["ownerReferences"],
            json!([
                {"apiVersion": "v1", "kind": "X", "name": "x", "uid": "1", "controller": true},
                {"apiVersion": "apps/v1", "kind": "Deployment", "name": "Other", "uid": ""},
                {"apiVersion": "apps/v1", "kind": "Deployment", "name": "Web", "uid": ""}
            ])
        );
        let own =
            json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "Web", "extra": 1}]);
        let got = expand(
            &deployment(json!({"metadata": {"ownerReferences": own}})),
            None,
        )
        .unwrap();
        assert_eq!(got["metadata"]["ownerReferences"], own);
    }

    #[test]
    fn owner_references_that_do_not_read_as_a_list_of_maps_are_replaced() {
        for odd in [json!("x"), json!([{"name": "a"}, 3])] {
            let got = expand(
                &deployment(json!({"metadata": {"ownerReferences": odd}})),
                None,
            );
            assert_eq!(
                got.unwrap()["metadata"]["ownerReferences"]
                    .as_array()
                    .unwrap()
                    .len(),
                1
            );
        }
    }

    #[test]
    fn a_generator_without_api_version_kind_or_name_gets_no_owner_reference() {
        let mut generator = deployment(json!({}));
        generator.as_object_mut().unwrap().remove("apiVersion");
        let got = expand(&generator, None).unwrap();
        assert_eq!(
            got["metadata"],
            json!({"namespace": "prod", "name": "web-pod"})
        );
    }

    #[test]
    fn a_non_map_metadata_in_the_source_is_left_as_it_is() {
        let got = expand(&deployment(json!({"metadata": "odd"})), None).unwrap();
        assert_eq!(
            got,
            json!({"metadata": "odd", "apiVersion": "v1", "kind": "Pod"})
        );
    }

    #[test]
    fn the_namespace_object_wins_over_the_source_and_the_generator() {
        let ns = json!({"metadata": {"name": "team"}});
        let source = json!({"metadata": {"namespace": "mine"}});
        let got = expand(&deployment(source.clone()), Some(&ns)).unwrap();
        assert_eq!(got["metadata"]["namespace"], "team");
        let got = expand(&deployment(source), None).unwrap();
        assert_eq!(got["metadata"]["namespace"], "prod");
    }

    #[test]
    fn source_errors_name_the_accessor_path_and_go_type() {
        let err = |template: Value| expand(&deployment(template), None).unwrap_err();
        assert_eq!(
            err(Value::Null),
            "could not extract source field from unstructured: .spec.template accessor error: \
             <nil> is of the type <nil>, expected map[string]interface{}"
        );
        assert!(err(json!([1, "a"])).contains("[1 a] is of the type []interface {}"));
        let nested = expand_resource(
            &deployment(json!(1)),
            None,
            &template("spec.template.x", "", "Pod"),
        );
        assert!(nested
            .unwrap_err()
            .contains(".spec.template.x accessor error: 1 is of the type int64"));
        let missing = expand_resource(
            &deployment(json!({})),
            None,
            &template("spec..x", "", "Pod"),
        );
        assert_eq!(
            missing.unwrap_err(),
            r#"could not find source field "spec..x" in resource Web"#
        );
    }

    #[test]
    fn a_null_or_non_string_generator_namespace() {
        let mut generator = deployment(json!({}));
        generator["metadata"]["namespace"] = Value::Null;
        assert_eq!(
            expand(&generator, None).unwrap_err(),
            r#"could not extract namespace field "spec.template" in parent resource Web"#
        );
        generator["metadata"] = Value::Null;
        assert_eq!(
            expand(&generator, None).unwrap()["metadata"],
            json!({"name": "-pod"})
        );
    }

    #[test]
    fn names_are_lowercased_and_a_kindless_gvk_adds_no_dash() {
        let got = expand_resource(
            &deployment(json!({})),
            None,
            &template("spec.template", "x.io", ""),
        );
        let got = got.unwrap();
        assert_eq!(got["metadata"]["name"], "web");
        assert_eq!(got["apiVersion"], "x.io/v1");
    }
}
