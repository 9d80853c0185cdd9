use crate::kinds::Builtin;
use crate::merge::{apply_configuration, MergeError};
use crate::schema::Schema;
use serde_json::{json, Value};

fn schema() -> Schema {
    Schema::from_value(&json!({
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "spec": {"type": "object", "properties": {
                "replicas": {"type": "integer"},
                "name": {"type": "string"},
                "paused": {"type": "boolean"},
                "port": {"x-kubernetes-int-or-string": true},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "args": {"type": "array", "items": {"type": "string"}},
                "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                    "properties": {"app": {"type": "string"}}},
                "byName": {"type": "object", "additionalProperties": {"type": "object",
                    "x-kubernetes-map-type": "atomic", "properties": {"a": {"type": "string"}}}},
                "items": {"type": "array", "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["id", "zone"],
                    "items": {"type": "object", "properties": {
                        "id": {"type": "integer"},
                        "zone": {"type": "string", "default": "a"},
                        "value": {"type": "string"},
                        "extra": {"type": "object", "properties": {"x": {"type": "string"}}},
                        "args": {"type": "array", "items": {"type": "string"}}
                    }}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            }}
        }
    }))
    .unwrap()
}

fn apply(live: Value, patch: Value) -> Result<Value, String> {
    apply_configuration(&live, &patch, &schema()).map_err(|e| e.to_string())
}

fn spec(s: Value) -> Value {
    json!({"spec": s})
}

#[test]
fn scalars_replace_and_new_keys_follow_the_live_order() {
    let got = apply(
        spec(json!({"name": "a", "replicas": 1})),
        spec(json!({"paused": true, "replicas": 2, "port": "http"})),
    )
    .unwrap();
    let keys: Vec<&String> = got["spec"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["name", "replicas", "paused", "port"]);
    assert_eq!(got["spec"]["replicas"], 2);
}

#[test]
fn maps_merge_key_by_key_and_nothing_is_removed() {
    let got = apply(
        spec(json!({"labels": {"a": "1", "b": "2"}, "replicas": 1})),
        spec(json!({"labels": {"b": "3", "c": "4"}})),
    );
    assert_eq!(
        got,
        Ok(spec(
            json!({"labels": {"a": "1", "b": "3", "c": "4"}, "replicas": 1})
        ))
    );
}

#[test]
fn sets_merge_by_value() {
    let got = apply(
        spec(json!({"tags": ["a", "b"]})),
        spec(json!({"tags": ["c", "a"]})),
    );
    assert_eq!(got, Ok(spec(json!({"tags": ["a", "b", "c"]}))));
}

#[test]
fn keyed_lists_merge_by_all_keys_with_key_defaults() {
    let live = spec(json!({"items": [
        {"id": 1, "zone": "a", "value": "x", "extra": {"x": "1"}},
        {"id": 1, "zone": "b", "value": "y"},
    ]}));
    // `zone` omitted: its default `a` names the first item.
    let patch = spec(json!({"items": [
        {"id": 2, "value": "new"},
        {"id": 1, "value": "z", "extra": {}},
    ]}));
    let got = apply(live, patch);
    assert_eq!(
        got,
        Ok(spec(json!({"items": [
            {"id": 1, "zone": "a", "value": "z", "extra": {"x": "1"}},
            {"id": 1, "zone": "b", "value": "y"},
            {"id": 2, "value": "new"},
        ]})))
    );
}

#[test]
fn duplicate_live_keys_survive_unless_the_patch_names_them() {
    let live = spec(json!({"items": [
        {"id": 1, "value": "a"}, {"id": 1, "value": "b"},
        {"id": 2, "value": "c"}, {"id": 2, "value": "d"},
    ]}));
    let got = apply(live, spec(json!({"items": [{"id": 2, "value": "e"}]})));
    assert_eq!(
        got,
        Ok(spec(json!({"items": [
            {"id": 1, "value": "a"}, {"id": 1, "value": "b"}, {"id": 2, "value": "e"},
        ]})))
    );
}

#[test]
fn atomics_are_refused_with_every_path() {
    let got = apply(
        spec(json!({})),
        spec(json!({
            "args": ["x"],
            "selector": {"app": "a"},
            "items": [{"id": 1, "args": ["y"]}],
        })),
    );
    assert_eq!(
        got,
        Err(
            "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: \
             .spec.args, .spec.selector, .spec.items[0].args"
                .into()
        )
    );
}

#[test]
fn atomic_values_of_a_map_are_not_looked_at_as_upstream() {
    let got = apply(spec(json!({})), spec(json!({"byName": {"k": {"a": "1"}}})));
    assert_eq!(got, Ok(spec(json!({"byName": {"k": {"a": "1"}}}))));
}

#[test]
fn unknown_fields_are_named_with_smd_paths() {
    let got = apply(
        spec(json!({})),
        spec(json!({"items": [{"id": 1, "zone": "b", "bogus": 1}]})),
    );
    assert_eq!(
        got,
        Err("failed to convert patch object to typed object: \
             .spec.items[id=1,zone=\"b\"].bogus: field not declared in schema"
            .into())
    );
}

#[test]
fn wrong_types_read_as_upstream() {
    let cases = [
        (json!({"labels": 3}), ".spec.labels: expected map, got &{3}"),
        (
            json!({"name": 3}),
            ".spec.name: expected string, got &value.valueUnstructured{Value:3}",
        ),
        (
            json!({"replicas": "3"}),
            ".spec.replicas: expected numeric (int or float), got string",
        ),
        (json!({"paused": "x"}), ".spec.paused: expected boolean, got &{x}"),
        (json!({"tags": "x"}), ".spec.tags: expected list, got &{x}"),
        (
            json!({"tags": [{"a": 1}]}),
            ".spec.tags: element 0: associative list without keys has an element that's a map type",
        ),
        (
            json!({"items": [{"value": "x"}]}),
            ".spec.items: element 0: associative list with keys has an element that omits key field \"id\" (and doesn't have default value)",
        ),
        (
            json!({"items": [{"id": 1}, {"id": 1, "zone": "a"}]}),
            ".spec.items: duplicate entries for key [id=1,zone=\"a\"]",
        ),
    ];
    for (patch, want) in cases {
        let got = apply(spec(json!({})), spec(patch.clone())).unwrap_err();
        let want = format!("failed to convert patch object to typed object: {want}");
        assert_eq!(got, want, "{patch}");
    }
}

#[test]
fn several_errors_are_listed() {
    let got = apply(spec(json!({})), spec(json!({"name": 1, "paused": 2})));
    assert_eq!(
        got,
        Err(
            "failed to convert patch object to typed object: errors:\n  \
             .spec.name: expected string, got &value.valueUnstructured{Value:1}\n  \
             .spec.paused: expected boolean, got &{2}"
                .into()
        )
    );
}

#[test]
fn preserved_unknown_fields_merge_as_maps_and_replace_lists() {
    let got = apply(
        spec(json!({"free": {"a": {"b": 1}, "l": [1, 2]}})),
        spec(json!({"free": {"a": {"c": 2}, "l": [3]}, "port": 8080})),
    );
    assert_eq!(
        got,
        Ok(spec(json!({
            "free": {"a": {"b": 1, "c": 2}, "l": [3]},
            "port": 8080
        })))
    );
}

#[test]
fn null_replaces_scalars_and_leaves_granular_maps() {
    let got = apply(
        spec(json!({"name": "a", "labels": {"a": "1"}})),
        spec(json!({"name": null, "labels": null})),
    );
    assert_eq!(got, Ok(spec(json!({"name": null, "labels": {"a": "1"}}))));
}

#[test]
fn empty_values_are_kept() {
    let got = apply(json!({}), spec(json!({"labels": {}, "tags": []})));
    assert_eq!(got, Ok(spec(json!({"labels": {}, "tags": []}))));
}

#[test]
fn the_live_object_must_convert_too() {
    let got = apply_configuration(
        &spec(json!({"bogus": 1})),
        &spec(json!({"replicas": 1})),
        &schema(),
    );
    assert!(matches!(got, Err(MergeError::Live(_))));
    assert_eq!(
        got.unwrap_err().to_string(),
        "failed to convert original object to typed object: .spec.bogus: field not declared in schema"
    );
}

fn deployment() -> &'static Schema {
    Builtin::newest().kind("apps", "v1", "Deployment").unwrap()
}

#[test]
fn deployment_atomic_container_args_are_refused_by_index() {
    let patch = json!({"spec": {"template": {"spec": {"containers": [
        {"name": "x", "args": ["a"]}
    ]}}}});
    let got = apply_configuration(&json!({}), &patch, deployment()).unwrap_err();
    assert_eq!(
        got.to_string(),
        "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: \
         .spec.template.spec.containers[0].args"
    );
}

#[test]
fn deployment_ports_match_with_the_protocol_default() {
    let containers = |ports: Value| json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "ports": ports}]}}}});
    let live = containers(json!([{"containerPort": 80, "protocol": "TCP"}]));
    let patch = containers(json!([{"containerPort": 80, "name": "http"}]));
    let got = apply_configuration(&live, &patch, deployment()).unwrap();
    let want = containers(json!([{"containerPort": 80, "protocol": "TCP", "name": "http"}]));
    assert_eq!(got, want);
}

#[test]
fn deployment_unknown_field_in_a_container_names_its_key() {
    let patch = json!({"spec": {"template": {"spec": {"containers": [
        {"name": "nginx", "imagex": "a"}
    ]}}}});
    let got = apply_configuration(&json!({}), &patch, deployment()).unwrap_err();
    assert_eq!(
        got.to_string(),
        "failed to convert patch object to typed object: \
         .spec.template.spec.containers[name=\"nginx\"].imagex: field not declared in schema"
    );
}

#[test]
fn a_crd_root_takes_type_meta_and_metadata_it_does_not_declare() {
    let crd = Schema::from_value(&json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}
    }}))
    .unwrap();
    let live = json!({"apiVersion": "example.com/v1", "kind": "Foo",
        "metadata": {"name": "a", "labels": {"x": "1"}}, "spec": {"size": 1}});
    let patch = json!({"metadata": {"labels": {"y": "2"}}, "spec": {"size": 2}});
    let got = apply_configuration(&live, &patch, &crd).unwrap();
    assert_eq!(
        got,
        json!({"apiVersion": "example.com/v1", "kind": "Foo",
            "metadata": {"name": "a", "labels": {"x": "1", "y": "2"}}, "spec": {"size": 2}})
    );
    let err = apply_configuration(&live, &json!({"spec": {"sizes": 2}}), &crd).unwrap_err();
    assert_eq!(
        err.to_string(),
        "failed to convert patch object to typed object: .spec.sizes: field not declared in schema"
    );
}
