//! Upstream's ratcheting tables (KEP-4008), one named test per case: an old and a new
//! `spec` under a schema, and whether the server admits the update.
//!
//! Transcribed from apiextensions-apiserver `pkg/apiserver/validation/ratcheting_test.go`
//! (and kube-openapi `pkg/validation/validate/ratcheting_test.go`, the same cases with
//! fewer fields) and the `TestRatchetingFunctionality` table of
//! `test/integration/ratcheting_test.go`. The integration table is a sequence of
//! server-side applies by one field manager, so each step's new object is exactly the
//! applied patch (a `null` removes the key) and its old object is the last accepted
//! state; the schema is the one the sequence had patched in by then. A case kadmit
//! decides differently is listed in [`DEVIATIONS`] with the reason, and its test checks
//! that the difference is still there.

use kadmit_schema::admission::{check_update, Definition};
use kadmit_schema::definition::Crd;
use serde_json::{json, Value};

/// Cases where kadmit's answer differs from upstream's, with why. None today.
const DEVIATIONS: &[(&str, &str)] = &[];

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

/// Runs one case: `admitted` is upstream's answer.
fn run(name: &str, schema: Value, old: Value, new: Value, admitted: bool) {
    let def = definition(schema);
    let result = check_update(&def, &widget(new), &widget(old), "default");
    let got = result.is_ok();
    match DEVIATIONS.iter().find(|(case, _)| *case == name) {
        Some((_, why)) => assert_ne!(
            got, admitted,
            "{name}: the listed deviation is gone ({why})"
        ),
        None => assert_eq!(
            got,
            admitted,
            "{name}: upstream {} the update; kadmit: {:?}",
            if admitted { "admits" } else { "refuses" },
            result.err().map(|e| e.kubectl_message())
        ),
    }
}

macro_rules! cases {
    ($($name:ident: $schema:expr, $old:expr => $new:expr, $admitted:expr;)*) => {
        $(
            #[test]
            fn $name() {
                run(stringify!($name), $schema, $old, $new, $admitted);
            }
        )*
    };
}

fn number(extra: Value) -> Value {
    let mut s = json!({"type": "number"});
    s.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    s
}

fn string(extra: Value) -> Value {
    let mut s = json!({"type": "string"});
    s.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    s
}

fn object(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

/// `objectSchema` of the validation tests: four numbers with ranges.
fn ranges() -> Value {
    object(json!({
        "zero": number(json!({"minimum": 0, "maximum": 0})),
        "small": number(json!({"maximum": 50})),
        "medium": number(json!({"minimum": 50, "maximum": 10000})),
        "large": number(json!({"minimum": 10000})),
    }))
}

fn scalar() -> Value {
    object(json!({"value": number(json!({"minimum": 50, "maximum": 10000}))}))
}

/// "Minimum Maximum" after its schema patch.
fn min_max() -> Value {
    object(json!({
        "hasMinimum": number(json!({"minimum": 10})),
        "hasMaximum": number(json!({"maximum": 20})),
        "hasMinimumAndMaximum": number(json!({"minimum": 10, "maximum": 20})),
        "noRestrictions": {"type": "integer"},
    }))
}

fn enumeration() -> Value {
    object(json!({
        "enumField": string(json!({"enum": ["A", "B", "C"]})),
        "otherField": string(json!({})),
    }))
}

fn additional_properties() -> Value {
    object(json!({
        "nums": {"type": "object", "additionalProperties": number(json!({"minimum": 1000}))},
        "content": {"type": "object", "additionalProperties": string(json!({}))},
    }))
}

fn restricted(bounds: Value) -> Value {
    let mut r = json!({"type": "object", "additionalProperties": {"type": "string"}});
    r.as_object_mut()
        .unwrap()
        .extend(bounds.as_object().unwrap().clone());
    object(json!({
        "restricted": r,
        "unrestricted": {"type": "object", "additionalProperties": {"type": "string"}},
    }))
}

fn array(bounds: Value) -> Value {
    let mut a = json!({"type": "array", "items": {"type": "string"}});
    a.as_object_mut()
        .unwrap()
        .extend(bounds.as_object().unwrap().clone());
    object(json!({"field": {"type": "string"}, "array": a}))
}

fn lengths() -> Value {
    object(json!({
        "minField": string(json!({"minLength": 10})),
        "maxField": string(json!({"maxLength": 15})),
        "otherField": string(json!({})),
    }))
}

fn pattern() -> Value {
    object(
        json!({"field": string(json!({"pattern": "^[1-9]+$"})), "otherField": string(json!({}))}),
    )
}

fn format(format: &str) -> Value {
    object(json!({"field": string(json!({"format": format})), "otherField": string(json!({}))}))
}

/// "Map Type List Reordering Grandfathers Invalid Key": a map list keyed by name and
/// port, with `bounds` on the list and `port` as given.
fn ports(bounds: Value, port: Value) -> Value {
    let mut list = json!({"type": "array", "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name", "port"],
        "items": {"type": "object", "required": ["name", "port"], "properties": {
            "name": {"type": "string"}, "port": port, "field": {"type": "string"}}}});
    list.as_object_mut()
        .unwrap()
        .extend(bounds.as_object().unwrap().clone());
    object(json!({"field": list}))
}

fn entry(name: &str, port: u32, field: &str) -> Value {
    json!({"name": name, "port": port, "field": field})
}

fn servers() -> Vec<Value> {
    vec![
        entry("nginx", 443, "value"),
        entry("etcd", 2379, "value"),
        entry("kube-apiserver", 6443, "value"),
    ]
}

fn reordered() -> Vec<Value> {
    vec![
        entry("kube-apiserver", 6443, "value"),
        entry("nginx", 443, "value"),
        entry("etcd", 2379, "value"),
    ]
}

fn with_dev(mut items: Vec<Value>) -> Vec<Value> {
    items.push(entry("dev", 8080, "value"));
    items
}

/// "ArrayItems do not correlate by index": an atomic list of string maps.
fn string_maps() -> Value {
    object(json!({
        "values": {"type": "array", "items": {"type": "object",
            "additionalProperties": string(json!({"minLength": 6}))}},
        "otherField": string(json!({})),
    }))
}

fn optional_old_self() -> Value {
    object(
        json!({"field": {"type": "string", "x-kubernetes-validations": [
        {"rule": "!oldSelf.hasValue()", "message": "oldSelf must be null", "optionalOldSelf": true}]}}),
    )
}

fn transition() -> Value {
    json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {
        "myStringField": {"type": "string", "x-kubernetes-validations": [
            {"rule": "oldSelf != 'myStringValue' || self == 'validstring'"}]}}})
}

/// "CEL Add Change Rule": a map of objects whose `stringField` must start with `k8s`.
fn prefixed() -> Value {
    object(
        json!({"field": {"type": "object", "additionalProperties": {"type": "object", "properties": {
        "stringField": {"type": "string", "x-kubernetes-validations": [
            {"rule": "self.startsWith('k8s')", "message": "strings must have k8s prefix"}]},
        "intField": {"type": "number"},
        "otherIntField": {"type": "number"}}}}}),
    )
}

fn item(s: &str, i: u32) -> Value {
    json!({"stringField": s, "intField": i})
}

const THREE: [&str; 3] = ["value1", "value2", "value3"];

cases! {
    // ---- pkg/apiserver/validation/ratcheting_test.go --------------------------------
    scalar_unchanged_invalid_value_is_ratcheted:
        scalar(), json!({"value": 1}) => json!({"value": 1}), true;
    scalar_changed_invalid_value_is_refused:
        scalar(), json!({"value": 2}) => json!({"value": 1}), false;
    object_scalar_fields_unchanged_invalid_field_is_ratcheted:
        ranges(), json!({"small": 500}) => json!({"small": 500}), true;
    object_scalar_fields_invalid_field_removed_unchanged_one_ratcheted:
        ranges(), json!({"small": 501, "medium": 500}) => json!({"small": 501}), true;
    object_scalar_fields_changed_invalid_field_is_refused:
        ranges(), json!({"small": 501}) => json!({"small": 500}), false;
    object_object_fields_unchanged_nested_invalid_field_is_ratcheted:
        object(json!({"nested": ranges()})),
        json!({"nested": {"small": 500}}) => json!({"nested": {"small": 500}}), true;
    object_object_fields_nested_removal_keeps_ratcheting:
        object(json!({"nested": ranges()})),
        json!({"nested": {"small": 501, "medium": 500}}) => json!({"nested": {"small": 501}}), true;
    object_object_fields_changed_nested_invalid_field_is_refused:
        object(json!({"nested": ranges()})),
        json!({"nested": {"small": 501}}) => json!({"nested": {"small": 500}}), false;

    // ---- test/integration/ratcheting_test.go: Minimum Maximum -------------------------
    minimum_maximum_add_new_fields_without_changing_old_ones:
        min_max(), json!({"hasMinimum": 0, "hasMaximum": 1000, "hasMinimumAndMaximum": 50})
        => json!({"noRestrictions": 50}), true;
    minimum_maximum_change_a_single_old_field_to_be_invalid:
        min_max(), json!({"noRestrictions": 50}) => json!({"hasMinimum": 5}), false;
    minimum_maximum_change_multiple_old_fields_to_be_invalid:
        min_max(), json!({"noRestrictions": 50}) => json!({"hasMinimum": 5, "hasMaximum": 21}), false;
    minimum_maximum_change_single_old_field_to_be_valid:
        min_max(), json!({"noRestrictions": 50}) => json!({"hasMinimum": 11}), true;
    minimum_maximum_change_multiple_old_fields_to_be_valid:
        min_max(), json!({"hasMinimum": 11}) => json!({"hasMaximum": 19, "hasMinimumAndMaximum": 15}), true;

    // ---- Enum ----------------------------------------------------------------------
    enum_an_invalid_patch_with_no_changes_is_a_noop:
        enumeration(), json!({"enumField": "okValueNowBadValueLater"})
        => json!({"enumField": "okValueNowBadValueLater"}), true;
    enum_add_a_new_field_and_include_old_value:
        enumeration(), json!({"enumField": "okValueNowBadValueLater"})
        => json!({"enumField": "okValueNowBadValueLater", "otherField": "anythingGoes"}), true;
    enum_set_enum_field_to_invalid_value_d:
        enumeration(), json!({"enumField": "okValueNowBadValueLater", "otherField": "anythingGoes"})
        => json!({"enumField": "D"}), false;
    enum_set_to_a_valid_value:
        enumeration(), json!({"enumField": "okValueNowBadValueLater", "otherField": "anythingGoes"})
        => json!({"enumField": "A"}), true;
    enum_return_to_the_old_accepted_value_after_a_valid_one:
        enumeration(), json!({"enumField": "A"}) => json!({"enumField": "okValueNowBadValueLater"}), false;

    // ---- AdditionalProperties ------------------------------------------------------
    additional_properties_valid_change_ratchets_the_invalid_sibling:
        additional_properties(),
        json!({"nums": {"num1": 1, "num2": 1000000}, "content": {"k1": "some content", "k2": "other content"}})
        => json!({"nums": {"num1": 1, "num2": 2000}}), true;
    additional_properties_invalid_field_changed_to_another_invalid_value:
        additional_properties(), json!({"nums": {"num1": 1, "num2": 2000}})
        => json!({"nums": {"num1": 2, "num2": 2000}}), false;

    // ---- MinProperties MaxProperties -----------------------------------------------
    min_max_properties_ratchet_around_an_unrelated_field:
        restricted(json!({"minProperties": 1, "maxProperties": 1})),
        json!({"restricted": {"key1": "hi", "key2": "there"}})
        => json!({"restricted": {"key1": "hi", "key2": "there"}, "unrestricted": {"key1": "yo"}}), true;
    min_max_properties_invalid_change_to_the_ratcheted_field:
        restricted(json!({"minProperties": 1, "maxProperties": 1})),
        json!({"restricted": {"key1": "hi", "key2": "there"}, "unrestricted": {"key1": "yo"}})
        => json!({"restricted": {"key1": "changed", "key2": "there"}, "unrestricted": {"key1": "yo"}}), false;
    min_properties_a_new_valid_value:
        restricted(json!({"minProperties": 2})),
        json!({"restricted": {"key1": "hi", "key2": "there"}, "unrestricted": {"key1": "yo"}})
        => json!({"restricted": {"key1": "hi", "key2": "there", "key3": "buddy"}}), true;
    min_properties_violated_by_removing_keys:
        restricted(json!({"minProperties": 2})),
        json!({"restricted": {"key1": "hi", "key2": "there", "key3": "buddy"}})
        => json!({"restricted": {"key1": "hi"}}), false;
    max_properties_ratcheted_while_only_the_other_field_changes:
        restricted(json!({"maxProperties": 1})),
        json!({"restricted": {"key1": "hi", "key2": "there", "key3": "buddy"}})
        => json!({"restricted": {"key1": "hi", "key2": "there", "key3": "buddy"}, "unrestricted": {"key1": "value", "key2": "value"}}), true;
    max_properties_modifying_one_value_keeping_old_fields:
        restricted(json!({"maxProperties": 1})),
        json!({"restricted": {"key1": "hi", "key2": "there", "key3": "buddy"}, "unrestricted": {"key1": "value", "key2": "value"}})
        => json!({"restricted": {"key1": "hi", "key2": "theres", "key3": "buddy"}}), false;

    // ---- MinItems ------------------------------------------------------------------
    min_items_unchanged_array_with_a_new_field:
        array(json!({"minItems": 10})), json!({"array": THREE})
        => json!({"array": THREE, "field": "value"}), true;
    min_items_modify_an_element_without_satisfying_it:
        array(json!({"minItems": 10})), json!({"array": THREE, "field": "value"})
        => json!({"array": ["value2", "value2", "value3"]}), false;
    min_items_add_an_element_without_satisfying_it:
        array(json!({"minItems": 10})), json!({"array": THREE, "field": "value"})
        => json!({"array": ["value1", "value2", "value3", "value4"]}), false;
    min_items_make_the_array_valid:
        array(json!({"minItems": 10})), json!({"array": THREE, "field": "value"})
        => json!({"array": ["value1", "value2", "value3", "4", "5", "6", "7", "8", "9", "10"]}), true;
    min_items_revert_to_the_original_value:
        array(json!({"minItems": 10})),
        json!({"array": ["value1", "value2", "value3", "4", "5", "6", "7", "8", "9", "10"]})
        => json!({"array": THREE}), false;

    // ---- MaxItems ------------------------------------------------------------------
    max_items_ratchet_through_an_update_to_another_field:
        array(json!({"maxItems": 1})), json!({"array": THREE})
        => json!({"array": THREE, "field": "value"}), true;
    max_items_modify_an_element_without_satisfying_it:
        array(json!({"maxItems": 1})), json!({"array": THREE, "field": "value"})
        => json!({"array": ["value2", "value2", "value3"]}), false;
    max_items_remove_an_element_without_satisfying_it:
        array(json!({"maxItems": 1})), json!({"array": THREE, "field": "value"})
        => json!({"array": ["value1", "value2"]}), false;
    max_items_change_to_a_valid_value:
        array(json!({"maxItems": 1})), json!({"array": THREE, "field": "value"})
        => json!({"array": ["value1"]}), true;
    max_items_revert_to_the_ratcheted_value:
        array(json!({"maxItems": 1})), json!({"array": ["value1"]}) => json!({"array": THREE}), false;

    // ---- MinLength MaxLength -------------------------------------------------------
    min_max_length_new_field_ratchets_both:
        lengths(), json!({"minField": "value", "maxField": "valueThatsVeryLongSee"})
        => json!({"minField": "value", "maxField": "valueThatsVeryLongSee", "otherField": "otherValue"}), true;
    min_max_length_make_min_field_valid_ratcheting_max_field:
        lengths(), json!({"minField": "value", "maxField": "valueThatsVeryLongSee", "otherField": "otherValue"})
        => json!({"minField": "valuelength13", "maxField": "valueThatsVeryLongSee", "otherField": "otherValue"}), true;
    min_max_length_make_max_field_shorter:
        lengths(), json!({"minField": "valuelength13", "maxField": "valueThatsVeryLongSee", "otherField": "otherValue"})
        => json!({"maxField": "l2"}), true;
    min_max_length_make_max_field_too_long:
        lengths(), json!({"maxField": "l2"}) => json!({"maxField": "valuewithlength17"}), false;
    min_max_length_revert_min_field_to_the_ratcheted_value:
        lengths(), json!({"maxField": "l2"}) => json!({"minField": "value"}), false;
    min_max_length_revert_max_field_to_the_ratcheted_value:
        lengths(), json!({"maxField": "l2"}) => json!({"maxField": "valueThatsVeryLongSee"}), false;

    // ---- Pattern -------------------------------------------------------------------
    pattern_add_unrelated_field_ratcheting_the_old_invalid_one:
        pattern(), json!({"field": "doesnt abide pattern"})
        => json!({"field": "doesnt abide pattern", "otherField": "added"}), true;
    pattern_change_field_to_an_invalid_value:
        pattern(), json!({"field": "doesnt abide pattern", "otherField": "added"})
        => json!({"field": "w123", "otherField": "added"}), false;
    pattern_change_field_to_a_valid_value:
        pattern(), json!({"field": "doesnt abide pattern", "otherField": "added"})
        => json!({"field": "123", "otherField": "added"}), true;

    // ---- Format Addition and Change ------------------------------------------------
    format_byte_ratchets_the_old_invalid_value_around_an_unrelated_field:
        format("byte"), json!({"field": "doesnt abide any format"})
        => json!({"field": "doesnt abide any format", "otherField": "value"}), true;
    format_byte_change_field_to_an_invalid_string:
        format("byte"), json!({"field": "doesnt abide any format", "otherField": "value"})
        => json!({"field": "asd"}), false;
    format_byte_change_field_to_a_valid_byte_string:
        format("byte"), json!({"field": "doesnt abide any format", "otherField": "value"})
        => json!({"field": "dGhpcyBpcyBwYXNzd29yZA=="}), true;
    format_date_time_ratchets_the_old_byte_value_around_other_field:
        format("date-time"), json!({"field": "dGhpcyBpcyBwYXNzd29yZA=="})
        => json!({"field": "dGhpcyBpcyBwYXNzd29yZA==", "otherField": "value2"}), true;
    format_date_time_change_field_to_a_valid_value:
        format("date-time"), json!({"field": "dGhpcyBpcyBwYXNzd29yZA==", "otherField": "value2"})
        => json!({"field": "2018-11-13T20:20:39+00:00", "otherField": "value2"}), true;
    format_date_time_revert_to_the_previously_ratcheted_value:
        format("date-time"), json!({"field": "2018-11-13T20:20:39+00:00", "otherField": "value2"})
        => json!({"field": "dGhpcyBpcyBwYXNzd29yZA==", "otherField": "value2"}), false;
    format_date_time_revert_to_the_initial_value:
        format("date-time"), json!({"field": "2018-11-13T20:20:39+00:00", "otherField": "value2"})
        => json!({"field": "doesnt abide any format"}), false;

    // ---- Map Type List Reordering Grandfathers Invalid Key --------------------------
    map_list_reorder_items_over_max_items_without_changing_them:
        ports(json!({"maxItems": 2}), json!({"type": "number"})),
        json!({"field": servers()}) => json!({"field": reordered()}), true;
    map_list_adding_an_item_over_max_items:
        ports(json!({"maxItems": 2}), json!({"type": "number"})),
        json!({"field": reordered()})
        => json!({"field": with_dev(reordered())}), false;
    map_list_reorder_with_odd_port_keys:
        ports(json!({}), json!({"type": "number", "multipleOf": 2})),
        json!({"field": reordered()}) => json!({"field": servers()}), true;
    map_list_invalid_keys_kept_while_siblings_change:
        ports(json!({}), json!({"type": "number", "multipleOf": 2})),
        json!({"field": servers()})
        => json!({"field": [entry("nginx", 443, "value"), entry("etcd", 2379, "value"),
            entry("kube-apiserver", 6443, "this is a changed value for an an invalid but grandfathered key"),
            entry("dev", 8080, "value")]}), true;

    // ---- ArrayItems do not correlate by index --------------------------------------
    atomic_list_change_a_value_below_min_length:
        string_maps(), json!({"values": [{"name": "1", "key": "value"}, {"name": "2", "key": "value"}]})
        => json!({"values": [{"name": "1", "key": "value"}, {"name": "2", "key": "bad"}]}), false;
    atomic_list_unchanged_with_a_new_sibling_field:
        string_maps(), json!({"values": [{"name": "1", "key": "value"}, {"name": "2", "key": "value"}]})
        => json!({"values": [{"name": "1", "key": "value"}, {"name": "2", "key": "value"}], "otherField": "hello world"}), true;
    atomic_list_items_are_not_correlated_by_index:
        string_maps(), json!({"values": [{"name": "1", "key": "value"}, {"name": "2", "key": "value"}], "otherField": "hello world"})
        => json!({"values": [{"name": "1", "key": "value"}, {"name": "2", "key": "value", "key2": "valid value"}]}), false;
    atomic_list_reordered:
        string_maps(), json!({"values": [{"name": "1", "key": "value"}, {"name": "2", "key": "value"}], "otherField": "hello world"})
        => json!({"values": [{"name": "2", "key": "value", "key2": "valid value"}, {"name": "1", "key": "value"}]}), false;

    // ---- CEL Optional OldSelf ------------------------------------------------------
    cel_optional_old_self_update_fails_with_an_old_value:
        optional_old_self(), json!({"field": "value"}) => json!({"field": "value2"}), false;
    cel_optional_old_self_noop_update_fails_transition_rules_do_not_ratchet:
        optional_old_self(), json!({"field": "value"}) => json!({"field": "value"}), false;

    // ---- CEL_transition_rules_should_not_ratchet -----------------------------------
    cel_transition_rule_unchanged_field_is_not_ratcheted:
        transition(), json!({"myStringField": "myStringValue", "myOtherField": "myOtherField"})
        => json!({"myOtherField": "myNewOtherField", "myStringField": "myStringValue"}), false;
    cel_transition_rule_both_fields_valid:
        transition(), json!({"myStringField": "myStringValue", "myOtherField": "myOtherField"})
        => json!({"myStringField": "validstring", "myOtherField": "myNewOtherField"}), true;

    // ---- CEL Add Change Rule -------------------------------------------------------
    cel_rule_added_new_entry_follows_it_old_ones_ratcheted:
        prefixed(),
        json!({"field": {"object1": item("a string", 5), "object2": item("another string", 15), "object3": item("a third string", 7)}})
        => json!({"field": {"object1": item("a string", 5), "object2": item("another string", 15),
            "object3": item("a third string", 7), "object4": item("k8s third string", 7)}}), true;
    cel_rule_sibling_changes_ratchet_the_unchanged_invalid_value:
        prefixed(),
        json!({"field": {"object1": item("a string", 5), "object2": item("another string", 15),
            "object3": item("a third string", 7), "object4": item("k8s third string", 7)}})
        => json!({"field": {"object1": item("a string", 15),
            "object2": {"stringField": "another string", "intField": 10, "otherIntField": 20}}}), true;
    cel_rule_previously_ratcheted_field_changed_to_invalid:
        prefixed(),
        json!({"field": {"object1": item("a string", 15),
            "object2": {"stringField": "another string", "intField": 10, "otherIntField": 20}}})
        => json!({"field": {"object2": {"stringField": "a changed string"}, "object3": {"stringField": "a changed third string"}}}), false;
    cel_rule_mixed_ratcheting:
        prefixed(),
        json!({"field": {"object1": item("a string", 15),
            "object2": {"stringField": "another string", "intField": 10, "otherIntField": 20}}})
        => json!({"field": {"object1": item("a string", 1000), "object4": item("k8s third string", 7000)}}), true;
    cel_rule_swap_values_between_keys:
        prefixed(),
        json!({"field": {"object1": item("a string", 1000), "object4": item("k8s third string", 7000)}})
        => json!({"field": {"object1": item("k8s third string", 1000), "object4": item("a string", 7000)}}), false;
    cel_rule_fix_keys:
        prefixed(),
        json!({"field": {"object1": item("a string", 1000), "object4": item("k8s third string", 7000)}})
        => json!({"field": {"object1": item("k8s a stringy", 1000), "object4": item("k8s third stringy", 7000)}}), true;
}
