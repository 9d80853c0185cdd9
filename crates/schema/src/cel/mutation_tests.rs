//! The MAP types (`mutation`): struct literals, `JSONPatch`, `jsonpatch.escapeKey`, the
//! output types and the conversions of ApplyConfiguration and JSONPatch results.

use super::expression::{compile, Activation, Declarations, EvalError, Invocation, ResultType};
use super::mutation::escape_key;
use serde_json::{json, Value};

fn map() -> Declarations {
    Declarations::admission(true, false).with_mutation_types()
}

fn activation(object: Value) -> Activation<'static> {
    Activation::new().with("object", object)
}

fn apply_configuration(source: &str, object: Value) -> Result<Value, EvalError> {
    let expression = compile(source, &map()).unwrap_or_else(|e| panic!("{source}: {e}"));
    let activation = activation(object);
    Invocation::new(&activation, &[], 1_000_000).evaluate_apply_configuration(&expression)
}

fn json_patch(source: &str, object: Value) -> Result<Vec<Value>, EvalError> {
    let expression = compile(source, &map()).unwrap_or_else(|e| panic!("{source}: {e}"));
    let activation = activation(object);
    Invocation::new(&activation, &[], 1_000_000).evaluate_json_patch(&expression)
}

#[test]
fn escape_key_escapes_tilde_then_slash() {
    assert_eq!(escape_key("k8s.io/x~y"), "k8s.io~1x~0y");
    assert_eq!(escape_key("~1"), "~01");
    assert_eq!(escape_key("plain"), "plain");
    let ops = json_patch(
        r#"[JSONPatch{op: "add", path: "/a/" + jsonpatch.escapeKey("a/b~c"), value: 1}]"#,
        json!({}),
    )
    .unwrap();
    assert_eq!(
        ops,
        vec![json!({"op": "add", "path": "/a/a~1b~0c", "value": 1})]
    );
    let vap = compile(
        "jsonpatch.escapeKey(object.k)",
        &Declarations::admission(false, false),
    )
    .unwrap();
    assert_eq!(vap.output_type(), ResultType::String);
    assert_eq!(
        vap.evaluate(&activation(json!({"k": "~/"}))),
        Ok(json!("~0~1"))
    );
}

#[test]
fn the_types_are_undeclared_without_the_mutation_flag() {
    let vap = Declarations::admission(true, false);
    for (source, name) in [
        ("Object{}", "Object"),
        ("Object.spec{replicas: 1}", "Object.spec"),
        ("[JSONPatch{op: \"add\"}]", "JSONPatch"),
    ] {
        let e = compile(source, &vap).unwrap_err().detail;
        assert!(
            e.contains(&format!(
                "undeclared reference to '{name}' (in container '')"
            )),
            "{source}: {e}"
        );
        assert!(compile(source, &map()).is_ok(), "{source}");
    }
    let e = compile("acme.Account{id: 1}", &map()).unwrap_err().detail;
    assert_eq!(
        e,
        "compilation failed: ERROR: <input>:1:13: undeclared reference to 'acme.Account' (in container '')"
    );
}

#[test]
fn json_patch_fields_are_checked() {
    let e = compile("JSONPatch{op: \"add\", opz: 1}", &map()).unwrap_err();
    assert!(e.detail.contains("undefined field 'opz'"), "{e}");
    let e = compile("JSONPatch{}.pathz", &map()).unwrap_err();
    assert!(e.detail.contains("undefined field 'pathz'"), "{e}");
}

#[test]
fn output_types() {
    let output = |source: &str| compile(source, &map()).unwrap().output_type();
    assert_eq!(output("Object{}"), ResultType::Object);
    assert_eq!(output("Object.spec{}"), ResultType::Object);
    assert_eq!(output("JSONPatch{}"), ResultType::JsonPatch);
    assert_eq!(
        output("[JSONPatch{op: \"remove\", path: \"/a\"}]"),
        ResultType::JsonPatchList
    );

    let check =
        |source: &str, want: ResultType| compile(source, &map()).unwrap().check_output(&[want]);
    assert_eq!(
        check("\"I'm a teapot!\"", ResultType::Object),
        Err("must evaluate to Object but got string".into())
    );
    assert_eq!(
        check("{\"a\": 1}", ResultType::Object),
        Err("must evaluate to Object but got map(dyn, dyn)".into())
    );
    assert_eq!(
        check("1", ResultType::JsonPatchList),
        Err("must evaluate to list(JSONPatch) but got int".into())
    );
    assert_eq!(
        check("JSONPatch{}", ResultType::JsonPatchList),
        Err("must evaluate to list(JSONPatch) but got JSONPatch".into())
    );
    assert_eq!(check("Object{}", ResultType::Object), Ok(()));
    assert_eq!(check("object.x", ResultType::Object), Ok(()), "dyn passes");
    assert_eq!(check("[JSONPatch{}]", ResultType::JsonPatchList), Ok(()));
    assert_eq!(
        check("object.spec.ops.map(o, o)", ResultType::JsonPatchList),
        Ok(()),
        "dyn passes"
    );
}

#[test]
fn apply_configuration_is_plain_json() {
    let got = apply_configuration(
        "Object{spec: Object.spec{replicas: object.spec.replicas + 1, \
         template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {\"a\": \"b\"}}}}}",
        json!({"spec": {"replicas": 2}}),
    )
    .unwrap();
    assert_eq!(
        got,
        json!({"spec": {"replicas": 3, "template": {"metadata": {"labels": {"a": "b"}}}}})
    );
    let got = apply_configuration(
        "Object{spec: Object.spec{containers: [Object.spec.containers{name: \"a\"}]}}",
        json!({}),
    )
    .unwrap();
    assert_eq!(got, json!({"spec": {"containers": [{"name": "a"}]}}));
}

#[test]
fn apply_configuration_type_names_match_field_paths() {
    let e = apply_configuration("Object{spec: Object.specx{replicas: 1}}", json!({})).unwrap_err();
    assert_eq!(
        e.to_string(),
        "type mismatch: unexpected type name \"Object.specx\", expected \"Object.spec\", which matches field name path from root Object type"
    );
    let e = apply_configuration(
        "Object{spec: Object.spec{containers: [Object.spec.container{name: \"a\"}]}}",
        json!({}),
    )
    .unwrap_err();
    assert!(
        e.to_string().contains(
            "unexpected type name \"Object.spec.container\", expected \"Object.spec.containers\""
        ),
        "{e}"
    );
}

#[test]
fn apply_configuration_must_be_an_object() {
    for (source, got) in [
        ("\"I'm a teapot!\"", "string"),
        ("{\"spec\": 1}", "map"),
        ("Object.spec{}", "Object.spec"),
        ("JSONPatch{}", "JSONPatch"),
        ("null", "null_type"),
    ] {
        let e = apply_configuration(source, json!({})).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("must evaluate to Object but got {got}"),
            "{source}"
        );
    }
}

#[test]
fn json_patch_operations() {
    let ops = json_patch(
        r#"[
          JSONPatch{op: "test", path: "/spec/replicas", value: 1},
          JSONPatch{op: "copy", from: "/a", path: "/b"},
          JSONPatch{op: "remove", path: "/c", from: ""},
          JSONPatch{op: "add", path: "/d", value: object.spec},
          JSONPatch{op: "add", path: "/e", value: [Object.spec{replicas: 2}] + [{"x": 1}]},
        ]"#,
        json!({"spec": {"replicas": 1}}),
    )
    .unwrap();
    assert_eq!(
        ops,
        vec![
            json!({"op": "test", "path": "/spec/replicas", "value": 1}),
            json!({"op": "copy", "from": "/a", "path": "/b"}),
            json!({"op": "remove", "path": "/c"}),
            json!({"op": "add", "path": "/d", "value": {"replicas": 1}}),
            json!({"op": "add", "path": "/e", "value": [{"replicas": 2}, {"x": 1}]}),
        ]
    );
}

#[test]
fn json_patch_field_access_presence_and_equality() {
    let ops = json_patch(
        r#"[JSONPatch{op: "add", path: "/l", value: {
          "op": JSONPatch{op: "o"}.op,
          "has": string(has(JSONPatch{from: "f"}.from)),
          "unset": string(has(JSONPatch{}.value)),
          "eq": string(JSONPatch{op: "add", value: 1} == JSONPatch{value: 1, op: "add"}),
          "ne": string(JSONPatch{value: "1"} == JSONPatch{value: 1}),
        }}]"#,
        json!({}),
    )
    .unwrap();
    assert_eq!(
        ops[0]["value"],
        json!({"op": "o", "has": "true", "unset": "false", "eq": "true", "ne": "false"})
    );
}

#[test]
fn of_two_wrong_type_names_in_a_map_the_first_key_s_is_reported() {
    for _ in 0..10 {
        let e = apply_configuration(
            "Object{spec: Object.spec{m: {'f': Object.spec.f{}, 'e': Object.spec.e{}, 'd': Object.spec.d{}, 'c': Object.spec.c{}, 'b': Object.spec.b{}}}}",
            json!({}),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "type mismatch: unexpected type name \"Object.spec.b\", expected \"Object.spec.m\", which matches field name path from root Object type"
        );
    }
}

#[test]
fn json_patch_type_errors() {
    let e = json_patch("[JSONPatch{op: \"add\"}, {\"op\": \"add\"}]", json!({})).unwrap_err();
    assert_eq!(
        e.to_string(),
        "type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch types, got element of map"
    );
    let e = json_patch("JSONPatch{}", json!({})).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("type mismatch: JSONPatchType.expression should evaluate to array"),
        "{e}"
    );
    let e = json_patch(
        "[JSONPatch{op: \"add\", path: \"/s\", value: Object.spec{template: Object.spec.templatez{}}}]",
        json!({}),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "type mismatch: unexpected type name \"Object.spec.templatez\", expected \"Object.spec.template\", which matches field name path from root Object type"
    );
}

#[test]
fn struct_literals_are_charged_to_the_budget() {
    let expression = compile("[JSONPatch{op: \"add\"}, JSONPatch{op: \"add\"}]", &map()).unwrap();
    let activation = activation(json!({}));
    let mut invocation = Invocation::new(&activation, &[], 1_000);
    invocation.evaluate_json_patch(&expression).unwrap();
    assert!(
        invocation.remaining_budget() <= 1_000 - 80,
        "{}",
        invocation.remaining_budget()
    );
    let mut invocation = Invocation::new(&activation, &[], 50);
    assert_eq!(
        invocation.evaluate_json_patch(&expression),
        Err(EvalError::BudgetExhausted)
    );
}

#[test]
fn map_literals_are_written_with_their_keys_sorted_every_time() {
    // A CEL map iterates in its hash table's order, new in every map: without sorting,
    // the same mutation wrote its labels in a different order from run to run.
    let labels = r#"{"f": "6", "a": "1", "d": "4", "b": "2", "c": "3", "e": "5"}"#;
    let apply = format!("Object{{metadata: Object.metadata{{labels: {labels}}}}}");
    let patch = format!(r#"[JSONPatch{{op: "add", path: "/data", value: {labels}}}]"#);
    let sorted = r#"{"a":"1","b":"2","c":"3","d":"4","e":"5","f":"6"}"#;
    for _ in 0..20 {
        let got = apply_configuration(&apply, json!({})).unwrap();
        assert_eq!(got["metadata"]["labels"].to_string(), sorted);
        let got = json_patch(&patch, json!({})).unwrap();
        assert_eq!(got[0]["value"].to_string(), sorted);
    }
}
