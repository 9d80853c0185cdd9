//! Behaviour of the whole language: the quirks of kubemod.md sections 5 and 13.

use serde_json::{json, Value};

use super::*;

fn pod() -> Value {
    json!({
        "kind": "Pod",
        "metadata": {"name": "web", "labels": {"app": "nginx", "app.kubernetes.io/name": "x"}},
        "spec": {
            "hostNetwork": true,
            "containers": [
                {"name": "nginx", "image": "nginx:1.14.2", "ports": [{"containerPort": 80}]},
                {"name": "side", "image": "busybox", "securityContext": {}}
            ]
        }
    })
}

/// `%v` of the result, or `error: …`, or `compile: …`.
fn run(source: &str, doc: &Value) -> String {
    match compile(source) {
        Err(e) => format!("compile: {e}"),
        Ok(select) => match select.evaluate(doc) {
            Ok(Val::Undefined) => "undefined".into(),
            Ok(v) => v.format(),
            Err(e) => format!("error: {e}"),
        },
    }
}

#[test]
fn paths_select_values() {
    let doc = pod();
    assert_eq!(run("$.kind", &doc), "Pod");
    assert_eq!(
        run("$.spec.containers[0].ports[0].containerPort", &doc),
        "80"
    );
    assert_eq!(
        run(r#"$.metadata.labels["app.kubernetes.io/name"]"#, &doc),
        "x"
    );
    assert_eq!(run("$.spec.containers[*].name", &doc), "[nginx side]");
    assert_eq!(
        run("$.spec.containers[5].name", &doc),
        "error: index 5 out of bounds"
    );
    assert_eq!(run("$.spec.missing.deeper", &doc), "undefined");
    assert_eq!(
        run("$.kind.x", &doc).split(" for").next(),
        Some("error: unsupported value type string")
    );
    assert_eq!(run("$..containerPort", &doc), "[80]");
    assert_eq!(
        run("$.spec.containers[1:-1]", &doc),
        "[]",
        "start > end is tested before normalising"
    );
    assert_eq!(run("$.spec.containers[-1:].name", &doc), "[side]");
    assert_eq!(run("$.spec.containers[1:].name", &doc), "[side]");
}

#[test]
fn filters_and_functions() {
    let doc = pod();
    assert_eq!(
        run(
            r#"$.spec.containers[?@.image =~ "nginx:1\\.14\\..*"].name"#,
            &doc
        ),
        "[nginx]"
    );
    assert_eq!(
        run(
            "$.spec.containers[? isDefined(@.securityContext)].name",
            &doc
        ),
        "[side]"
    );
    assert_eq!(
        run("$.spec.containers[?@.securityContext].name", &doc),
        "[nginx]",
        "missing is NaN, true"
    );
    assert_eq!(run("length($.spec.containers) > 1", &doc), "true");
    assert_eq!(run("length($.spec.containers)", &doc), "2");
    assert_eq!(run("length($.kind)", &doc), "3");
    assert_eq!(
        run("isEmpty($.spec.containers[1].securityContext)", &doc),
        "true"
    );
    assert!(run("isEmpty(5)", &doc).starts_with("error"));
    assert_eq!(
        run(r#"date("2023-01-02") < date("2023-01-03")"#, &doc),
        "true"
    );
}

#[test]
fn undefined_and_nil_follow_the_code_not_the_readme() {
    let doc = pod();
    assert_eq!(run("$.a.b.c == 12", &doc), "false");
    assert_eq!(run("$.a.b.c != 12", &doc), "true");
    assert_eq!(run(r#"$.a.b.c != "x""#, &doc), "true");
    assert_eq!(run(r#"$.missing =~ "^$""#, &doc), "true");
    assert_eq!(
        run("$.missing && true", &doc),
        "error: unexpected operand type jsonpath.UndefinedType; expected bool"
    );
    assert_eq!(run("false && $.missing", &doc), "false");
    assert_eq!(run("kind", &doc), "Pod");
    assert_eq!(run("null", &doc), "<nil>");
    assert!(run("null.x", &doc).starts_with("error: unknown parameter null.x"));
    assert_eq!(run("@", &doc), "<nil>");
    assert_eq!(
        run("$.missing ?? 5", &doc),
        "undefined",
        "Undefined is neither false nor nil"
    );
    assert_eq!(run("null ?? 5", &doc), "5");
    assert_eq!(run("$.spec.hostNetwork ? 1 : 2", &doc), "1");
}

#[test]
fn equality_and_membership() {
    let doc = pod();
    assert_eq!(
        run(
            r#"$.spec.containers[0].ports[0].containerPort == "80""#,
            &doc
        ),
        "true"
    );
    assert_eq!(run(r#""1" == "1.0""#, &doc), "true");
    assert_eq!(run(r#"true == "true""#, &doc), "false");
    assert_eq!(run(r#""10" > "9""#, &doc), "false");
    assert_eq!(run(r#"$.kind in ["Pod", "Deployment"]"#, &doc), "true");
    assert_eq!(run(r#"80 in ["80"]"#, &doc), "false");
    assert!(run(r#"$.kind in "Pod""#, &doc).starts_with("error: expected type []interface{}"));
    assert_eq!(run(r#"1 + "a""#, &doc), "1a");
    assert_eq!(run("2 ** 10", &doc), "1024");
    assert_eq!(run("7 % 4 | 8", &doc), "11");
}

#[test]
fn parse_quirks_of_gval_1_0_1() {
    let doc = pod();
    assert_eq!(
        run("$.a==-1", &doc),
        "compile: column 4: unknown operator ==-"
    );
    assert_eq!(run("$.a == -1", &doc), "false");
    assert_eq!(
        run("$.spec.hostNetwork&&isDefined($.kind)", &doc),
        "compile: column 19: unknown operator &&i"
    );
    assert_eq!(run("$.spec.hostNetwork && isDefined($.kind)", &doc), "true");
    assert!(
        run("$.labels.my-key", &doc).starts_with("error: "),
        "parses as subtraction"
    );
    assert!(run("$.spec.containers.0", &doc).starts_with("compile: column 18"));
    assert_eq!(
        run("$.a[?(@.name=='xy')]", &doc),
        "compile: column 15: could not parse string: invalid syntax"
    );
    assert_eq!(
        run("$.spec.containers[?(@.name=='x')]", &doc),
        "[]",
        "one character is fine"
    );
    assert!(run("1 && 2", &doc).starts_with("compile: column 3: unexpected operand type float64"));
    assert!(
        run(r#"$.kind =~ "(""#, &doc).starts_with("compile: column 8: invalid regular expression")
    );
    assert_eq!(run("$.kind // comment", &doc), "Pod");
    assert!(run("$.kind $.kind", &doc).starts_with("compile: column 8: unexpected '$'"));
    assert!(
        run("#0", &doc).starts_with("compile: column 1: JSONPath placeholder must only be used")
    );
    assert!(run("", &doc).starts_with("compile: column 1: unexpected end of expression"));
}

#[test]
fn columns_point_at_the_offending_token() {
    let err = compile("$.kind == ").unwrap_err();
    assert_eq!(err.column, 11);
    let err = compile("$.spec[1,2:3]").unwrap_err();
    assert_eq!(
        err.to_string(),
        "column 11: mixed ',' and ':' in JSON bracket"
    );
    let err = compile("length(\n  $.a ==)").unwrap_err();
    assert_eq!((err.column, err.message.starts_with("line 2: ")), (9, true));
}

#[test]
fn object_literals_and_placeholders() {
    let doc = json!({"a": [10, 20]});
    assert_eq!(run(r#"{"x": 1, "y": $.a}"#, &doc), "map[x:1 y:[10 20]]");
    assert_eq!(run("{#: $.a[*]}", &doc), r#"map[$["0"]:10 $["1"]:20]"#);
    assert_eq!(run("{#0: $.a[*]}", &doc), "map[0:10 1:20]");
    assert!(
        run("{#1: $.a[*]}", &doc).starts_with("error: JSONPath placeholder #1 is not available")
    );
    assert_eq!(
        run(r#"{"x" 1 2}"#, &doc),
        "map[x:2]",
        "the token after a key is skipped"
    );
}

#[test]
fn hostile_input_is_refused_not_overflowed() {
    let deep = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
    assert!(compile(&deep)
        .unwrap_err()
        .message
        .contains("nested too deeply"));
    let long = vec!["$.a"; 5000].join("+");
    assert!(compile(&long)
        .unwrap_err()
        .message
        .contains("nested too deeply"));
    let nots = format!("{}true", "!".repeat(5000));
    assert!(compile(&nots).is_err());
    let stars = format!("${}", "[*]".repeat(500));
    assert!(compile(&stars).is_err());
    let mut doc = json!(1);
    for _ in 0..3000 {
        doc = Value::Array(vec![doc]);
    }
    assert_eq!(
        compile("length($..*)")
            .unwrap()
            .evaluate(&doc)
            .unwrap()
            .format(),
        "3000"
    );
    assert_eq!(
        compile("$[::4611686018427387904]")
            .unwrap()
            .evaluate(&json!([1, 2]))
            .unwrap()
            .format(),
        "[1]"
    );
}

#[test]
fn bare_jsonpath_dialect_has_only_deep_equality() {
    let doc = json!({"a": 1.23, "s": "80", "n": 80});
    let run_bare = |s: &str| match compile_with(s, Dialect::JsonPath) {
        Err(e) => format!("compile: {e}"),
        Ok(sel) => sel
            .evaluate(&doc)
            .map_or_else(|e| format!("error: {e}"), |v| v.format()),
    };
    assert_eq!(run_bare("$.a == 1.23"), "true");
    assert_eq!(run_bare("$.s == 80"), "false");
    assert!(run_bare("$.n + 1").starts_with("compile"));
    assert!(run_bare("$.n >= 1").starts_with("compile: column 5: unknown operator >="));
    assert!(run_bare("length($.n)").starts_with("error"));
    assert!(run_bare("{#: $.n}").starts_with("compile"));
}

#[test]
fn regex_operators_take_go_syntax_and_errors() {
    let doc = json!({"kind": "a{<b>}", "pattern": "a**"});
    assert_eq!(run(r#"$.kind =~ "^a{""#, &doc), "true");
    assert_eq!(run(r#"$.kind =~ "\\<b\\>""#, &doc), "true");
    assert_eq!(run(r#"$.kind =~ "^\\Qa{<\\E""#, &doc), "true");
    assert_eq!(run(r#"$.kind !~ "a{2}""#, &doc), "true");
    assert_eq!(
        run(r#"$.kind =~ "a**""#, &doc),
        "compile: column 8: invalid regular expression: error parsing regexp: invalid nested repetition operator: `**`"
    );
    assert_eq!(
        run("$.kind =~ $.pattern", &doc),
        "error: error parsing regexp: invalid nested repetition operator: `**`"
    );
}
