//! The update path of a custom resource (`admission::check_update`): transition rules
//! (`oldSelf`, `optionalOldSelf`) with the server's correlation, and KEP-4008 ratcheting.
//!
//! The ratcheting cases transcribe the behaviour of kube-openapi's
//! `pkg/validation/validate/ratcheting_test.go`, apiextensions
//! `pkg/apiserver/schema/cel/validation_test.go` (`TestRatcheting*`) and the KEP-4008
//! examples: one named test per case, each an old and a new object and the errors the
//! server reports (an empty list when ratcheting forgives).

use kadmit_schema::admission::{check, check_update, Definition, Refused};
use kadmit_schema::definition::Crd;
use serde_json::{json, Value};

/// A namespaced `Widget` CRD with `spec` as given.
fn definition(spec: Value) -> Definition {
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                    "metadata": {"type": "object"}, "spec": spec}
            }}}]
        }
    });
    Definition::new(Crd::from_value(&crd).expect("the CRD is valid"))
}

fn widget(spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"}, "spec": spec})
}

/// The error lines of an update (empty when admitted).
fn update(def: &Definition, old: Value, new: Value) -> Vec<String> {
    lines(check_update(def, &widget(new), &widget(old), "default").map(|_| ()))
}

fn create(def: &Definition, new: Value) -> Vec<String> {
    lines(check(def, &widget(new), "default").map(|_| ()))
}

fn lines(result: Result<(), Refused>) -> Vec<String> {
    match result {
        Ok(()) => Vec::new(),
        Err(Refused::Invalid { causes, .. }) => causes.iter().map(|c| c.to_string()).collect(),
        Err(other) => vec![other.kubectl_message()],
    }
}

/// The server's line after a blocking error when the schema has CEL rules (the ratcheting
/// schema has one).
const BLOCKED: &str = "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation";

fn immutable_string() -> Value {
    json!({"type": "object", "properties": {"name": {"type": "string",
        "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "name is immutable"}]}}})
}

// ---- transition rules -------------------------------------------------------------

#[test]
fn transition_rule_is_skipped_on_create() {
    let def = definition(immutable_string());
    assert!(create(&def, json!({"name": "a"})).is_empty());
    let checked = check(&def, &widget(json!({"name": "a"})), "default").unwrap();
    assert_eq!(checked.skipped_transition_rules, 1);
}

#[test]
fn transition_rule_runs_on_update_against_the_old_value() {
    let def = definition(immutable_string());
    assert!(update(&def, json!({"name": "a"}), json!({"name": "a"})).is_empty());
    assert_eq!(
        update(&def, json!({"name": "a"}), json!({"name": "b"})),
        ["spec.name: Invalid value: \"b\": name is immutable"]
    );
}

#[test]
fn transition_rule_is_skipped_where_the_old_object_had_no_value() {
    let def = definition(immutable_string());
    assert!(update(&def, json!({}), json!({"name": "b"})).is_empty());
}

#[test]
fn optional_old_self_is_none_on_create_and_some_on_update() {
    let def = definition(
        json!({"type": "object", "properties": {"n": {"type": "integer",
        "x-kubernetes-validations": [{"rule": "oldSelf.hasValue() ? self >= oldSelf.value() : self < 10",
            "optionalOldSelf": true, "message": "may only grow, from below 10"}]}}}),
    );
    assert!(create(&def, json!({"n": 5})).is_empty());
    assert_eq!(
        create(&def, json!({"n": 50})),
        ["spec.n: Invalid value: 50: may only grow, from below 10"]
    );
    assert!(update(&def, json!({"n": 50}), json!({"n": 60})).is_empty());
    assert_eq!(
        update(&def, json!({"n": 50}), json!({"n": 40})),
        ["spec.n: Invalid value: 40: may only grow, from below 10"]
    );
    // No old value at this field on update: oldSelf is none, as on create.
    assert!(update(&def, json!({}), json!({"n": 5})).is_empty());
}

fn map_list() -> Value {
    json!({"type": "object", "properties": {"ports": {"type": "array",
        "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
        "items": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string"},
            "port": {"type": "integer", "x-kubernetes-validations": [
                {"rule": "self == oldSelf", "message": "port is immutable"}]}}}}}})
}

#[test]
fn transition_rules_correlate_map_list_items_by_key() {
    let def = definition(map_list());
    let old = json!({"ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}]});
    // Reordered and one added: every kept item keeps its port.
    let reordered = json!({"ports": [{"name": "https", "port": 443}, {"name": "metrics", "port": 9090},
        {"name": "http", "port": 80}]});
    assert!(update(&def, old.clone(), reordered).is_empty());
    let changed =
        json!({"ports": [{"name": "https", "port": 443}, {"name": "http", "port": 8080}]});
    assert_eq!(
        update(&def, old, changed),
        ["spec.ports[1].port: Invalid value: 8080: port is immutable"]
    );
}

#[test]
fn transition_rules_correlate_granular_and_atomic_map_values_by_key() {
    for map_type in ["granular", "atomic"] {
        let def = definition(
            json!({"type": "object", "properties": {"limits": {"type": "object",
            "x-kubernetes-map-type": map_type,
            "additionalProperties": {"type": "integer", "x-kubernetes-validations": [
                {"rule": "self >= oldSelf", "message": "may not shrink"}]}}}}),
        );
        assert!(update(
            &def,
            json!({"limits": {"a": 2}}),
            json!({"limits": {"a": 3, "b": 0}})
        )
        .is_empty());
        assert_eq!(
            update(
                &def,
                json!({"limits": {"a": 2}}),
                json!({"limits": {"a": 1}})
            ),
            ["spec.limits[a]: Invalid value: 1: may not shrink"],
            "{map_type}"
        );
    }
}

#[test]
fn old_self_under_atomic_and_set_lists_is_refused_with_the_crd() {
    for list_type in ["atomic", "set"] {
        let crd = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                    "type": "object", "properties": {"spec": {"type": "object", "properties": {"l": {
                        "type": "array", "x-kubernetes-list-type": list_type,
                        "items": {"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}}}}}]}
        });
        let Err(refusal) = Crd::from_value(&crd) else {
            panic!("{list_type}: the CRD is refused");
        };
        let refusal = refusal.kubectl_message();
        assert!(
            refusal.contains("oldSelf cannot be used on the uncorrelatable portion of the schema"),
            "{list_type}: {refusal}"
        );
    }
}

#[test]
fn transition_rule_on_the_whole_spec() {
    let def = definition(json!({"type": "object",
        "properties": {"mode": {"type": "string"}},
        "x-kubernetes-validations": [{"rule": "!has(oldSelf.mode) || has(self.mode)",
            "message": "mode may not be removed"}]}));
    assert_eq!(
        update(&def, json!({"mode": "a"}), json!({})),
        ["spec: Invalid value: mode may not be removed"]
    );
}

// ---- ratcheting (KEP-4008) ----------------------------------------------------------

fn ratchet_schema() -> Value {
    json!({"type": "object", "properties": {
        "small": {"type": "string", "maxLength": 3},
        "count": {"type": "integer", "minimum": 1},
        "mode": {"type": "string", "enum": ["A", "B"]},
        "nested": {"type": "object", "properties": {"s": {"type": "string", "maxLength": 3}, "t": {"type": "string"}}},
        "byIndex": {"type": "array", "items": {"type": "string", "maxLength": 3}},
        "atomic": {"type": "array", "x-kubernetes-list-type": "atomic", "items": {"type": "string", "maxLength": 3}},
        "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string", "maxLength": 3}},
        "keyed": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
            "items": {"type": "object", "required": ["k"], "properties": {"k": {"type": "string"}, "v": {"type": "string", "maxLength": 3}}}},
        "m": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 3}},
        "celled": {"type": "string", "x-kubernetes-validations": [{"rule": "self.startsWith('x')", "message": "must start with x"}]}
    }})
}

/// Upstream: an unchanged invalid value is not reported.
#[test]
fn ratcheting_unchanged_invalid_scalar_is_forgiven() {
    let def = definition(ratchet_schema());
    assert!(update(
        &def,
        json!({"small": "toolong"}),
        json!({"small": "toolong"})
    )
    .is_empty());
    assert!(update(&def, json!({"count": 0}), json!({"count": 0})).is_empty());
    assert!(update(&def, json!({"mode": "C"}), json!({"mode": "C"})).is_empty());
}

/// Upstream: a changed value is validated, even if the old one was invalid too.
#[test]
fn ratcheting_changed_invalid_scalar_is_reported() {
    let def = definition(ratchet_schema());
    assert_eq!(
        update(
            &def,
            json!({"small": "toolong"}),
            json!({"small": "toolonger"})
        ),
        [
            "spec.small: Too long: may not be more than 3 bytes",
            BLOCKED
        ]
    );
}

/// Upstream: a new field (no old value to correlate) is always validated.
#[test]
fn ratcheting_new_field_is_validated() {
    let def = definition(ratchet_schema());
    assert_eq!(
        update(&def, json!({}), json!({"mode": "C"})),
        [
            "spec.mode: Unsupported value: \"C\": supported values: \"A\", \"B\"",
            BLOCKED
        ]
    );
}

/// Upstream: changing a sibling does not un-forgive an unchanged invalid field.
#[test]
fn ratcheting_sibling_change_keeps_the_unchanged_field_forgiven() {
    let def = definition(ratchet_schema());
    assert!(update(
        &def,
        json!({"nested": {"s": "toolong", "t": "a"}}),
        json!({"nested": {"s": "toolong", "t": "b"}})
    )
    .is_empty());
}

/// Lists without a list type are atomic: their items do not correlate by index, so a
/// change anywhere revalidates every item (apiserver `cel/common/equality.go`).
#[test]
fn ratcheting_list_items_are_not_correlated_by_index() {
    let def = definition(ratchet_schema());
    assert_eq!(
        update(
            &def,
            json!({"byIndex": ["toolong", "a"]}),
            json!({"byIndex": ["toolong", "b"]})
        ),
        [
            "spec.byIndex[0]: Too long: may not be more than 3 bytes",
            BLOCKED
        ]
    );
    assert!(update(
        &def,
        json!({"byIndex": ["toolong", "a"]}),
        json!({"byIndex": ["toolong", "a"]})
    )
    .is_empty());
    assert_eq!(
        update(
            &def,
            json!({"byIndex": ["toolong"]}),
            json!({"byIndex": ["a", "toolong"]})
        ),
        [
            "spec.byIndex[1]: Too long: may not be more than 3 bytes",
            BLOCKED
        ]
    );
}

/// Atomic lists and sets do not correlate by item: any change revalidates every item.
#[test]
fn ratcheting_atomic_and_set_lists_as_a_whole() {
    let def = definition(ratchet_schema());
    for field in ["atomic", "set"] {
        assert!(update(
            &def,
            json!({field: ["toolong"]}),
            json!({field: ["toolong"]})
        )
        .is_empty());
        assert_eq!(
            update(
                &def,
                json!({field: ["toolong"]}),
                json!({field: ["toolong", "b"]})
            ),
            [
                format!("spec.{field}[0]: Too long: may not be more than 3 bytes"),
                BLOCKED.to_owned()
            ],
            "{field}"
        );
    }
}

/// Map lists correlate by key, so reordering forgives.
#[test]
fn ratcheting_map_list_items_by_key() {
    let def = definition(ratchet_schema());
    let old = json!({"keyed": [{"k": "a", "v": "toolong"}, {"k": "b", "v": "ok"}]});
    let new = json!({"keyed": [{"k": "b", "v": "new"}, {"k": "a", "v": "toolong"}]});
    assert!(update(&def, old, new).is_empty());
}

#[test]
fn ratcheting_map_values_by_key() {
    let def = definition(ratchet_schema());
    assert!(update(
        &def,
        json!({"m": {"a": "toolong"}}),
        json!({"m": {"a": "toolong", "b": "x"}})
    )
    .is_empty());
    assert_eq!(
        update(
            &def,
            json!({"m": {"a": "toolong"}}),
            json!({"m": {"a": "toolong!"}})
        ),
        ["spec.m.a: Too long: may not be more than 3 bytes", BLOCKED]
    );
}

/// CEL rules without oldSelf ratchet too (apiextensions `TestRatcheting`).
#[test]
fn ratcheting_cel_rule_on_unchanged_value() {
    let def = definition(ratchet_schema());
    assert!(update(&def, json!({"celled": "a"}), json!({"celled": "a"})).is_empty());
    let checked = check_update(
        &def,
        &widget(json!({"celled": "a", "count": 2})),
        &widget(json!({"celled": "a", "count": 1})),
        "default",
    )
    .unwrap();
    assert_eq!(
        checked.warnings,
        ["spec.celled: Invalid value: \"a\": must start with x"]
    );
    assert_eq!(
        update(&def, json!({"celled": "a"}), json!({"celled": "b"})),
        ["spec.celled: Invalid value: \"b\": must start with x"]
    );
}

/// A transition rule is never ratcheted: it compares with the old value itself.
#[test]
fn ratcheting_never_applies_to_transition_rules() {
    let def = definition(
        json!({"type": "object", "properties": {"v": {"type": "string",
        "x-kubernetes-validations": [{"rule": "self != oldSelf", "message": "must change"}]}}}),
    );
    assert_eq!(
        update(&def, json!({"v": "a"}), json!({"v": "a"})),
        ["spec.v: Invalid value: \"a\": must change"]
    );
}

/// list-type uniqueness is checked only when the old object had no such error.
#[test]
fn ratcheting_list_type_errors_only_when_the_old_object_was_valid() {
    let def = definition(ratchet_schema());
    assert!(update(
        &def,
        json!({"set": ["a", "a"]}),
        json!({"set": ["a", "a", "b"]})
    )
    .is_empty());
    assert_eq!(
        update(&def, json!({"set": ["a"]}), json!({"set": ["a", "a"]})),
        ["spec.set[1]: Duplicate value: \"a\""]
    );
}

// ---- ObjectMeta on update -----------------------------------------------------------

#[test]
fn uid_may_not_change() {
    let def = definition(json!({"type": "object"}));
    let mut old = widget(json!({}));
    old["metadata"]["uid"] = json!("1");
    let mut new = widget(json!({}));
    new["metadata"]["uid"] = json!("2");
    assert_eq!(
        lines(check_update(&def, &new, &old, "default").map(|_| ())),
        ["metadata.uid: Invalid value: \"2\": field is immutable"]
    );
    new["metadata"].as_object_mut().unwrap().remove("uid");
    assert!(check_update(&def, &new, &old, "default").is_ok());
}

#[test]
fn no_new_finalizers_while_deleting() {
    let def = definition(json!({"type": "object"}));
    let mut old = widget(json!({}));
    old["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
    old["metadata"]["finalizers"] = json!(["a/x"]);
    let mut new = widget(json!({}));
    new["metadata"]["finalizers"] = json!(["a/x", "b/y"]);
    assert_eq!(
        lines(check_update(&def, &new, &old, "default").map(|_| ())),
        ["metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"b/y\"}"]
    );
}
