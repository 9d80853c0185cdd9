//! The `smd_test-*` cases of the admission-policies peer fixtures (upstream apiserver
//! `mutating/patch/smd_test.go` `TestApplyConfiguration`), transcribed by hand: the
//! patch is the JSON the case's `Object{...}` expression denotes (its conditionals worked
//! out), against the built-in apps/v1 Deployment of the newest version.
//!
//! Not here, because they fail before any merge, in the CEL evaluation of the
//! expression: `smd_test-7` (a type name that does not match its field path),
//! `smd_test-9` (a string result), `smd_test-10` (an `Object.spec.metadata` result).

use crate::kinds::Builtin;
use crate::merge::apply_configuration;
use serde_json::{json, Value};

fn object(spec: Value) -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "test-deployment"},
        "spec": spec,
    })
}

fn apply(live: &Value, patch: Value) -> Result<Value, String> {
    let schema = Builtin::newest()
        .kind("apps", "v1", "Deployment")
        .expect("apps/v1 Deployment is built in");
    apply_configuration(live, &patch, schema).map_err(|e| format!("error applying patch: {e}"))
}

fn template_spec(spec: Value) -> Value {
    json!({"spec": {"template": {"spec": spec}}})
}

#[test]
fn smd_test_1_add_to_list_type_map() {
    let live = object(json!({"template": {"spec": {"volumes": [{"name": "x"}]}}}));
    let got = apply(&live, template_spec(json!({"volumes": [{"name": "y"}]})));
    let want = object(json!({"template": {"spec": {"volumes": [{"name": "x"}, {"name": "y"}]}}}));
    assert_eq!(got, Ok(want));
}

#[test]
fn smd_test_2_update_list_type_map_entry() {
    let live = object(json!({"template": {"spec": {"volumes": [{"name": "x"}, {"name": "y"}]}}}));
    let patch = template_spec(json!({"volumes": [{"name": "y", "hostPath": {"path": "a"}}]}));
    let want = object(json!({"template": {"spec": {"volumes": [
        {"name": "x"}, {"name": "y", "hostPath": {"path": "a"}}
    ]}}}));
    assert_eq!(apply(&live, patch), Ok(want));
}

#[test]
fn smd_test_3_conditionals() {
    // replicas 2 is even: the expression gives 2 + 1.
    let live = object(json!({"replicas": 2}));
    let got = apply(&live, json!({"spec": {"replicas": 3}}));
    assert_eq!(got, Ok(object(json!({"replicas": 3}))));
}

#[test]
fn smd_test_4_old_object() {
    // oldObject has replicas 2: the expression gives 3, whatever the object has.
    let live = object(json!({"replicas": 1}));
    let got = apply(&live, json!({"spec": {"replicas": 3}}));
    assert_eq!(got, Ok(object(json!({"replicas": 3}))));
}

#[test]
fn smd_test_5_complex_initialization() {
    let live = object(json!({}));
    let patch = json!({"spec": {
        "replicas": 1,
        "template": {
            "metadata": {"labels": {"app": "nginx"}},
            "spec": {"containers": [{
                "name": "nginx",
                "image": "nginx:1.14.2",
                "ports": [{"containerPort": 80}],
                "resources": {"limits": {"cpu": "128M"}},
            }]},
        },
    }});
    let want = object(patch["spec"].clone());
    assert_eq!(apply(&live, patch), Ok(want));
}

#[test]
fn smd_test_6_change_to_atomic() {
    let live = object(json!({"replicas": 1}));
    let got = apply(
        &live,
        json!({"spec": {"selector": {"matchLabels": {"l": "v"}}}}),
    );
    assert_eq!(
        got,
        Err("error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector".into())
    );
}

#[test]
fn smd_test_8_invalid_field_name() {
    let live = object(json!({"replicas": 1}));
    let got = apply(&live, json!({"spec": {"replicasx": 1}}));
    assert_eq!(
        got,
        Err("error applying patch: failed to convert patch object to typed object: .spec.replicasx: field not declared in schema".into())
    );
}

fn env_live(env: Value) -> Value {
    object(json!({"replicas": 1, "template": {"spec": {"containers": [
        {"name": "nginx", "env": env}
    ]}}}))
}

#[test]
fn smd_test_11_duplicate_env_vars_in_original_object() {
    let env = json!([{"name": "test", "value": "a"}, {"name": "test", "value": "b"}]);
    let got = apply(&env_live(env.clone()), json!({"spec": {"replicas": 3}}));
    let mut want = env_live(env);
    want["spec"]["replicas"] = json!(3);
    assert_eq!(got, Ok(want));
}

#[test]
fn smd_test_12_modify_existing_env_variable() {
    let live = env_live(json!([
        {"name": "test", "value": "a"},
        {"name": "test", "value": "b"},
        {"name": "foo", "value": "bar"},
    ]));
    let patch = template_spec(json!({"containers": [
        {"name": "nginx", "env": [{"name": "test", "value": "c"}]}
    ]}));
    let want = env_live(json!([{"name": "test", "value": "c"}, {"name": "foo", "value": "bar"}]));
    assert_eq!(apply(&live, patch), Ok(want));
}
