use super::validate;
use crate::schema::Schema;
use serde_json::{json, Value};

fn errors(schema: Value, value: Value) -> Vec<String> {
    let schema = Schema::from_value(&schema).expect("test schema");
    let mut texts: Vec<String> = validate(&value, &schema)
        .iter()
        .map(ToString::to_string)
        .collect();
    texts.sort();
    texts
}

fn field(property: Value, value: Value) -> Vec<String> {
    errors(
        json!({"type": "object", "properties": {"f": property}}),
        json!({"f": value}),
    )
}

fn sorted(mut v: Vec<&str>) -> Vec<String> {
    v.sort();
    v.into_iter().map(str::to_owned).collect()
}

#[test]
fn type_mismatch_names_the_json_type() {
    assert_eq!(
        field(json!({"type": "integer"}), json!("x")),
        ["f: Invalid value: \"string\": f in body must be of type integer: \"string\""]
    );
    assert_eq!(
        field(json!({"type": "object"}), json!(null)),
        ["f: Invalid value: \"null\": f in body must be of type object: \"null\""]
    );
    assert_eq!(
        errors(json!({"type": "object"}), json!([])),
        ["<nil>: Invalid value: \"array\":  in body must be of type object: \"array\""]
    );
}

#[test]
fn integers_and_numbers_cross_over() {
    assert!(field(json!({"type": "integer"}), json!(2.0)).is_empty());
    assert!(field(json!({"type": "number"}), json!(2)).is_empty());
    assert_eq!(
        field(json!({"type": "integer"}), json!(2.5)),
        ["f: Invalid value: \"number\": f in body must be of type integer: \"number\""]
    );
}

#[test]
fn int_or_string_and_nullable() {
    let ios = json!({"x-kubernetes-int-or-string": true});
    assert!(field(ios.clone(), json!(1)).is_empty());
    assert!(field(ios.clone(), json!("1")).is_empty());
    assert_eq!(
        field(ios, json!(true)),
        ["f: Invalid value: \"boolean\": f in body must be of type integer,string: \"boolean\""]
    );
    assert!(field(json!({"type": "string", "nullable": true}), json!(null)).is_empty());
    assert!(field(json!({"nullable": true}), json!(5)).is_empty());
}

#[test]
fn nullable_enum_still_rejects_null() {
    assert_eq!(
        field(
            json!({"type": "string", "nullable": true, "enum": ["a"]}),
            json!(null)
        ),
        ["f: Unsupported value: null: supported values: \"a\""]
    );
}

#[test]
fn required_lists_missing_properties() {
    let schema = json!({"type": "object", "required": ["a", "b"], "properties": {"a": {}, "b": {}, "c": {"type": "object", "required": ["d"]}}});
    assert_eq!(
        errors(schema, json!({"a": null, "c": {}})),
        ["b: Required value", "c.d: Required value"]
    );
}

#[test]
fn enum_reports_type_and_membership() {
    assert_eq!(
        field(json!({"type": "integer", "enum": [1, 2.5, "x", {"k": true}]}), json!("y")),
        sorted(vec![
            "f: Invalid value: \"string\": f in body must be of type integer: \"string\"",
            "f: Unsupported value: \"y\": supported values: \"1\", \"2.5\", \"x\", \"{\\\"k\\\":true}\"",
        ])
    );
    assert!(
        field(json!({"enum": ["A"]}), json!(65)).is_empty(),
        "Go converts an integer to a rune string"
    );
}

#[test]
fn string_lengths_count_runes_and_stop_at_the_first_failure() {
    assert_eq!(
        field(
            json!({"type": "string", "maxLength": 2, "pattern": "^z"}),
            json!("äöü")
        ),
        ["f: Too long: may not be more than 2 bytes"]
    );
    assert!(field(json!({"maxLength": 3}), json!("äöü")).is_empty());
    assert_eq!(
        field(json!({"maxLength": 1}), json!("ab")),
        ["f: Too long: may not be more than 1 byte"]
    );
    assert_eq!(
        field(json!({"minLength": 3, "pattern": "^z"}), json!("ab")),
        ["f: Invalid value: \"ab\": f in body should be at least 3 chars long"]
    );
}

#[test]
fn pattern_is_an_unanchored_go_search() {
    assert!(field(json!({"pattern": "b"}), json!("abc")).is_empty());
    assert_eq!(
        field(json!({"pattern": "^[a-z]*$"}), json!("a1")),
        ["f: Invalid value: \"a1\": f in body should match '^[a-z]*$'"]
    );
    assert_eq!(
        field(json!({"pattern": "^\\d$"}), json!("٣")).len(),
        1,
        "\\d is ASCII"
    );
    assert_eq!(
        field(json!({"pattern": "+"}), json!("x")),
        ["f: Invalid value: \"x\": f in body should match '+, but pattern is invalid: error parsing regexp: missing argument to repetition operator: `+`'"]
    );
}

#[test]
fn formats_are_type_invalid_and_unsupported_ones_stripped() {
    assert_eq!(
        field(json!({"type": "string", "format": "email"}), json!("x")),
        ["f: Invalid value: \"x\": f in body must be of type email: \"x\""]
    );
    assert_eq!(
        field(json!({"type": "string", "format": "date-time"}), json!("x")),
        ["f: Invalid value: \"x\": f in body must be of type date-time: \"x\""]
    );
    assert!(field(
        json!({"type": "string", "format": "no-such-format"}),
        json!("x")
    )
    .is_empty());
    assert!(
        field(
            json!({"type": "integer", "format": "int32"}),
            json!(1_i64 << 40)
        )
        .is_empty(),
        "1.35 strips int32"
    );
    assert_eq!(
        field(json!({"type": "string", "format": "byte"}), json!("")).len(),
        1
    );
}

#[test]
fn a_format_rejects_non_strings_with_their_go_format() {
    assert_eq!(
        field(json!({"type": "string", "format": "email"}), json!(5)),
        ["f: Invalid value: \"int64\": f in body must be of type email: \"int64\""]
    );
    assert_eq!(
        field(json!({"format": "uuid"}), json!(true)),
        ["f: Invalid value: \"\": f in body must be of type uuid: \"\""]
    );
    assert!(field(json!({"format": "uuid"}), json!(["x"])).is_empty());
}

#[test]
fn numeric_bounds() {
    assert_eq!(
        field(json!({"maximum": 10}), json!(15)),
        ["f: Invalid value: 15: f in body should be less than or equal to 10"]
    );
    assert_eq!(
        field(json!({"maximum": 10, "exclusiveMaximum": true}), json!(10)),
        ["f: Invalid value: 10: f in body should be less than 10"]
    );
    assert_eq!(
        field(json!({"minimum": 10}), json!(5)),
        ["f: Invalid value: 5: f in body should be greater than or equal to 10"]
    );
    assert_eq!(
        field(
            json!({"minimum": 1.5, "exclusiveMinimum": true}),
            json!(1.5)
        ),
        ["f: Invalid value: 1.5: f in body should be greater than 1.5"]
    );
    assert_eq!(
        field(json!({"maximum": 1.5}), json!(2)),
        ["f: Invalid value: 2: f in body should be less than or equal to 1"],
        "int64 data truncates the bound"
    );
    assert!(field(json!({"maximum": 1.5}), json!(1.5)).is_empty());
}

#[test]
fn multiple_of() {
    assert_eq!(
        field(json!({"multipleOf": 5}), json!(7)),
        ["f: Invalid value: 7: f in body should be a multiple of 5"]
    );
    assert!(field(json!({"multipleOf": 0.1}), json!(0.3)).is_empty());
    assert_eq!(
        field(json!({"multipleOf": 0.5}), json!(0.7)),
        ["f: Invalid value: 0.7: f in body should be a multiple of 0.5"]
    );
    assert_eq!(
        field(json!({"multipleOf": 0.5}), json!(3)),
        ["f: Invalid value: 0: factor MultipleOf declared for f must be positive: 0"]
    );
}

#[test]
fn array_keywords() {
    let schema = json!({"type": "array", "items": {"type": "integer"}, "minItems": 3, "maxItems": 1, "uniqueItems": true});
    assert_eq!(
        field(schema, json!([1, "x"])),
        sorted(vec![
            "f: Invalid value: 2: f in body should have at least 3 items",
            "f: Too many: 2: must have at most 1 item",
            "f[1]: Invalid value: \"string\": f[1] in body must be of type integer: \"string\"",
        ])
    );
    assert_eq!(
        field(json!({"uniqueItems": true}), json!([{"a": 1}, {"a": 1}])),
        ["f: Invalid value: \"\": f in body shouldn't contain duplicates"]
    );
    assert_eq!(
        field(json!({"maxItems": 1}), json!([1, 2])),
        ["f: Too many: 2: must have at most 1 item"]
    );
}

#[test]
fn object_property_counts_end_the_object_checks() {
    let schema = json!({"type": "object", "minProperties": 2, "required": ["x"], "properties": {"a": {"type": "string"}}});
    assert_eq!(
        field(schema.clone(), json!({"a": 1})),
        ["f: Invalid value: 1: f in body should have at least 2 properties"]
    );
    let schema = json!({"type": "object", "maxProperties": 1, "required": ["x"]});
    assert_eq!(
        field(schema, json!({"a": 1, "b": 2})),
        ["f: Too many: 2: must have at most 1 item"]
    );
}

#[test]
fn additional_properties() {
    let forbidden =
        json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false});
    assert_eq!(
        field(forbidden, json!({"a": 1, "k": 2})),
        ["f: Invalid value: \"k\": f.k in body is a forbidden property"]
    );
    let typed = json!({"type": "object", "additionalProperties": {"type": "string"}});
    assert_eq!(
        field(typed, json!({"k.x": 2})),
        ["f.k.x: Invalid value: \"integer\": f.k.x in body must be of type string: \"integer\""]
    );
    let root = json!({"type": "object", "additionalProperties": {"type": "string"}});
    assert_eq!(
        errors(root, json!({"k": 2})),
        ["k: Invalid value: \"integer\": .k in body must be of type string: \"integer\""]
    );
}

#[test]
fn any_of_reports_the_best_branch() {
    let schema = json!({"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 5}]});
    assert!(field(schema.clone(), json!("hello")).is_empty());
    assert_eq!(
        field(schema, json!("hi")),
        sorted(vec![
            "<nil>: Invalid value: \"\": \"f\" must validate at least one schema (anyOf)",
            "f: Invalid value: \"hi\": f in body should be at least 5 chars long",
        ])
    );
}

#[test]
fn the_best_branch_is_the_one_with_most_passing_checks() {
    let schema = json!({"anyOf": [
        {"type": "string"},
        {"type": "object", "properties": {"a": {"type": "string"}}}]});
    assert_eq!(
        field(schema, json!({"a": 1})),
        sorted(vec![
            "<nil>: Invalid value: \"\": \"f\" must validate at least one schema (anyOf)",
            "f.a: Invalid value: \"integer\": f.a in body must be of type string: \"integer\"",
        ])
    );
}

#[test]
fn one_of_with_no_valid_branch_reports_the_first_of_equal_failures() {
    let quantity = json!({"oneOf": [{"type": "string"}, {"type": "number"}]});
    assert_eq!(
        field(quantity, json!(true)),
        sorted(vec![
            "<nil>: Invalid value: \"\": \"f\" must validate one and only one schema (oneOf). Found none valid",
            "f: Invalid value: \"boolean\": f in body must be of type string: \"boolean\"",
        ])
    );
}

#[test]
fn one_of_counts_valid_branches() {
    let schema = json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]});
    assert!(field(schema.clone(), json!(-1)).is_empty());
    assert_eq!(field(schema.clone(), json!(1)), ["<nil>: Invalid value: \"\": \"f\" must validate one and only one schema (oneOf). Found 2 valid alternatives"]);
    assert_eq!(
        field(schema, json!(-1.5)),
        sorted(vec![
            "<nil>: Invalid value: \"\": \"f\" must validate one and only one schema (oneOf). Found none valid",
            "f: Invalid value: \"number\": f in body must be of type integer: \"number\"",
        ])
    );
}

#[test]
fn all_of_and_not() {
    let schema = json!({"allOf": [{"type": "integer"}, {"minimum": 5}]});
    assert_eq!(
        field(schema.clone(), json!(1)),
        sorted(vec![
            "<nil>: Invalid value: \"\": \"f\" must validate all the schemas (allOf)",
            "f: Invalid value: 1: f in body should be greater than or equal to 5",
        ])
    );
    let neither = json!({"allOf": [{"type": "integer"}, {"type": "boolean"}]});
    assert_eq!(
        field(neither, json!("x")),
        sorted(vec![
            "<nil>: Invalid value: \"\": \"f\" must validate all the schemas (allOf). None validated",
            "f: Invalid value: \"string\": f in body must be of type boolean: \"string\"",
            "f: Invalid value: \"string\": f in body must be of type integer: \"string\"",
        ])
    );
    assert_eq!(
        field(schema, json!("x")).len(),
        2,
        "the minimum branch does not apply to strings"
    );
    assert_eq!(
        field(json!({"not": {"type": "string"}}), json!("x")),
        ["<nil>: Invalid value: \"\": \"f\" must not validate the schema (not)"]
    );
    assert!(field(json!({"not": {"type": "string"}}), json!(1)).is_empty());
}

#[test]
fn identical_texts_are_reported_once() {
    let schema = json!({"allOf": [{"type": "string"}, {"type": "string"}]});
    assert_eq!(
        field(schema, json!(1)).len(),
        2,
        "one type error and the allOf summary"
    );
}

#[test]
fn only_type_and_enum_run_on_null() {
    let schema = json!({"nullable": true, "anyOf": [{"type": "string"}], "minLength": 3});
    assert!(field(schema, json!(null)).is_empty());
}
