//! Admission-policy expressions (`expression`): compile errors and evaluation.

use super::expression::{
    compile, Activation, ActivationValue, Declarations, EvalError, Invocation, ResultType,
    VariablesDecl,
};
use serde_json::{json, Value};

fn admission() -> Declarations {
    Declarations::admission(true, true)
}

fn compile_error(source: &str, declarations: &Declarations) -> String {
    compile(source, declarations).unwrap_err().detail
}

fn eval(source: &str, activation: &Activation) -> Result<Value, EvalError> {
    compile(source, &admission())
        .unwrap_or_else(|e| panic!("{source}: {e}"))
        .evaluate(activation)
}

#[test]
fn syntax_errors_have_cel_gos_position() {
    let e = compile_error("object.x in [1, 2, ", &admission());
    assert!(
        e.starts_with(
            "compilation failed: ERROR: <input>:1:20: Syntax error: missing ']' at '<EOF>'"
        ),
        "{e}"
    );
}

#[test]
fn undeclared_references_are_compile_errors() {
    let no_params = Declarations::admission(false, true);
    assert_eq!(
        compile_error("params.foo == \"okay\"", &no_params),
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')"
    );
    assert!(compile("params.foo == \"okay\"", &admission()).is_ok());
    let e = compile_error("size(object.x) > 0 && nope", &admission());
    assert!(
        e.ends_with("<input>:1:23: undeclared reference to 'nope' (in container '')"),
        "{e}"
    );
    // Comprehension variables, type names, namespaces and qualified declarations resolve.
    for ok in [
        "object.items.all(i, i > 0)",
        "object.items.all(i, v, v > i)",
        "object.items.map(x, x * 2).exists(y, y == 4)",
        "type(object) == map",
        "lists.range(3).size() == 3",
        "authorizer.requestResource == null || true",
        "[1, 2].exists_one(x, x == 1)",
    ] {
        assert!(compile(ok, &admission()).is_ok(), "{ok}");
    }
    // `variables` is not declared in matchConditions.
    let e = compile_error("variables.a", &admission());
    assert!(e.contains("undeclared reference to 'variables'"), "{e}");
}

#[test]
fn operator_overloads_between_known_types() {
    assert_eq!(
        compile_error("114 + '514'", &admission()),
        "compilation failed: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(int, string)'"
    );
    let e = compile_error("1 < 'asdf'", &admission());
    assert!(
        e.contains("<input>:1:3: found no matching overload for '_<_' applied to '(int, string)'"),
        "{e}"
    );
    let e = compile_error("true && 1", &admission());
    assert!(
        e.contains("found no matching overload for '_&&_' applied to '(bool, int)'"),
        "{e}"
    );
    // Dynamic operands and numeric cross-type comparisons pass.
    for ok in [
        "object.x + 1 > 2",
        "1 < 2.5",
        "'a' + object.s == 'ab'",
        "duration('1s') + timestamp('2024-01-01T00:00:00Z') > timestamp(0)",
    ] {
        assert!(compile(ok, &admission()).is_ok(), "{ok}");
    }
}

#[test]
fn output_types_are_checked_when_known() {
    let check = |source: &str, allowed: &[ResultType]| {
        compile(source, &admission()).unwrap().check_output(allowed)
    };
    assert_eq!(
        check("0 == 0", &[ResultType::String]),
        Err("must evaluate to string".into())
    );
    assert_eq!(
        check("true", &[ResultType::String, ResultType::Null]),
        Err("must evaluate to one of [string null_type]".into())
    );
    assert_eq!(
        check("'x' + 'y'", &[ResultType::Bool]),
        Err("must evaluate to bool".into())
    );
    assert_eq!(
        check("object.items.all(x, x > 0)", &[ResultType::Bool]),
        Ok(())
    );
    assert_eq!(check("has(object.spec)", &[ResultType::Bool]), Ok(()));
    assert_eq!(
        check("null", &[ResultType::String, ResultType::Null]),
        Ok(())
    );
    // Unknown (dyn) outputs pass.
    assert_eq!(check("object.spec.enabled", &[ResultType::Bool]), Ok(()));
}

#[test]
fn evaluation_reads_object_request_and_params() {
    let activation = Activation::new()
        .with(
            "object",
            json!({"metadata": {"name": "web", "labels": {"app": "x"}}, "spec": {"replicas": 3}}),
        )
        .with(
            "request",
            json!({"operation": "CREATE", "userInfo": {"username": "alice"}}),
        )
        .with("params", json!({"maxReplicas": 5}));
    assert_eq!(
        eval("object.spec.replicas <= params.maxReplicas", &activation),
        Ok(json!(true))
    );
    assert_eq!(
        eval(
            "request.operation == 'CREATE' && request.userInfo.username.startsWith('al')",
            &activation
        ),
        Ok(json!(true))
    );
    assert_eq!(
        eval("'name ' + object.metadata.name", &activation),
        Ok(json!("name web"))
    );
    assert_eq!(
        eval("object.metadata.labels", &activation),
        Ok(json!({"app": "x"}))
    );
    // oldObject is null on CREATE.
    assert_eq!(eval("oldObject == null", &activation), Ok(json!(true)));
    // Errors use cel-go's texts.
    assert_eq!(
        eval("object.spec.missing == 1", &activation),
        Err(EvalError::Failed("no such key: missing".into()))
    );
}

#[test]
fn kubernetes_libraries_are_available() {
    let activation = Activation::new().with(
        "object",
        json!({"cpu": "500m", "url": "https://example.com/a"}),
    );
    assert_eq!(
        eval(
            "quantity(object.cpu).isLessThan(quantity('1'))",
            &activation
        ),
        Ok(json!(true))
    );
    assert_eq!(
        eval("url(object.url).getHost()", &activation),
        Ok(json!("example.com"))
    );
    assert_eq!(eval("'abc'.matches('^a')", &activation), Ok(json!(true)));
    assert_eq!(eval("cel.bind(x, 2, x * x + 1)", &activation), Ok(json!(5)));
    assert_eq!(eval("lists.range(3)", &activation), Ok(json!([0, 1, 2])));
}

#[test]
fn the_per_expression_cost_limit_stops_an_evaluation() {
    let items: Vec<i64> = (0..200).collect();
    let activation = Activation::new().with("object", json!({"items": items}));
    let nested = "object.items.all(x, object.items.all(y, object.items.all(z, x + y + z >= 0)))";
    let result = eval(nested, &activation);
    assert_eq!(result, Err(EvalError::CostLimitExceeded));
    assert_eq!(
        result.unwrap_err().to_string(),
        "operation cancelled: actual cost limit exceeded"
    );
    // A small budget for the invocation runs out first.
    let program = compile("object.items.all(x, x >= 0)", &admission()).unwrap();
    let mut invocation = Invocation::new(&activation, &[], 50);
    assert_eq!(
        invocation.evaluate(&program),
        Err(EvalError::BudgetExhausted)
    );
}

#[test]
fn variables_compose_in_order() {
    let base = Declarations::admission(false, true);
    let mut declared = Vec::new();
    let mut compiled = Vec::new();
    for (name, source) in [
        ("foo1", "object.name + '1'"),
        ("foo2", "variables.foo1.replace('1', '2')"),
        ("broken", "object.missing"),
        ("isBig", "size(variables.foo2) > 3"),
    ] {
        let env = base
            .clone()
            .with_variables(VariablesDecl::Fields(declared.clone()));
        let program = compile(source, &env).unwrap();
        declared.push((name.to_owned(), program.output_type()));
        compiled.push((name.to_owned(), program));
    }
    // A later variable is not visible to an earlier one.
    let env = base
        .clone()
        .with_variables(VariablesDecl::Fields(declared[..1].to_vec()));
    assert_eq!(
        compile_error("variables.foo2", &env),
        "compilation failed: ERROR: <input>:1:10: undefined field 'foo2'"
    );
    let env = base.with_variables(VariablesDecl::Fields(declared.clone()));
    assert_eq!(declared[3].1, ResultType::Bool);
    let check = compile("variables.isBig && variables.foo2 == 'web2'", &env).unwrap();
    assert_eq!(check.check_output(&[ResultType::Bool]), Ok(()));
    let uses_broken = compile("variables.broken == 1", &env).unwrap();
    let activation = Activation::new().with("object", json!({"name": "web"}));
    let mut invocation = Invocation::new(&activation, &compiled, 10_000_000);
    assert_eq!(invocation.evaluate(&check), Ok(json!(true)));
    assert_eq!(
        invocation.evaluate(&uses_broken),
        Err(EvalError::Failed("no such key: missing".into()))
    );
    assert!(invocation.remaining_budget() < 10_000_000);
}

#[test]
fn common_policy_expressions_compile() {
    let env = admission().with_variables(VariablesDecl::Open);
    for source in [
        "object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))",
        "request.userInfo.groups.exists(g, g == 'system:masters')",
        "object.metadata.?labels.orValue({}).size() > 0",
        "optional.of(1).hasValue()",
        "cel.bind(x, 1, x + 1) == 2",
        "authorizer.group('apps').resource('deployments').check('create').allowed()",
        "int(object.spec.replicas) < 5 && string(1) == '1'",
        "math.greatest(1, 2) == 2",
        "sets.contains([1], [1])",
        "isURL('https://x') && url('https://x').getHost() == 'x'",
        "ip('1.2.3.4').family() == 4 && cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))",
        "!format.dns1123Label().validate('x').hasValue()",
        "'%s'.format([1]) == '1'",
        "jsonpatch.escapeKey('a/b') == 'a~1b'",
        "has(object.metadata.labels) ? 'a' : 'b'",
        "namespaceObject.metadata.labels['env'] == 'prod'",
        "variables.foo == params.?bar.orValue('x')",
        "dyn(1) == 1",
        "[1, 2].map(x, x * 2).filter(y, y > 2).size() == 1",
        "{'a': 1}.all(k, k == 'a')",
        "object.items.transformList(i, v, v + 1) == [2]",
    ] {
        if let Err(e) = compile(source, &env) {
            panic!("{source}: {e}");
        }
    }
}

#[test]
fn selecting_on_a_null_variable_is_no_such_key() {
    // `params` without a paramRef, `oldObject` on CREATE: cel-go's `refQualify`.
    let activation = Activation::new().with("object", json!({"metadata": {"name": "web"}}));
    let no_key = |k: &str| Err(EvalError::Failed(format!("no such key: {k}")));
    assert_eq!(
        eval("params.metadata.name == 'x'", &activation),
        no_key("metadata")
    );
    assert_eq!(
        eval("oldObject['metadata']", &activation),
        no_key("metadata")
    );
    assert_eq!(eval("has(params.metadata)", &activation), Ok(json!(false)));
    assert_eq!(
        eval("has(params.metadata.name)", &activation),
        no_key("metadata")
    );
    assert_eq!(
        eval(
            "has(params.metadata) && params.metadata.name == 'x'",
            &activation
        ),
        Ok(json!(false))
    );
    assert_eq!(
        eval("params == null && null == params", &activation),
        Ok(json!(true))
    );
    assert_eq!(eval("params", &activation), Ok(Value::Null));
    // A bound value selects as before; a comprehension variable shadows the name.
    assert_eq!(eval("object.metadata.name", &activation), Ok(json!("web")));
    assert_eq!(eval("has(object.metadata)", &activation), Ok(json!(true)));
    assert_eq!(
        eval("[{'a': 1}].all(params, params.a == 1)", &activation),
        Ok(json!(true))
    );
    assert_eq!(
        eval("cel.bind(params, {'a': 2}, params.a)", &activation),
        Ok(json!(2))
    );
    // The qualified declaration is not a selection on `authorizer`.
    assert!(compile("authorizer.requestResource == null", &admission()).is_ok());
}

#[test]
fn selecting_on_a_scalar_type_is_a_compile_error() {
    // cel-go's checker on a null literal, unlike a variable bound to null.
    assert_eq!(
        compile_error("null.metadata == 1", &admission()),
        "compilation failed: ERROR: <input>:1:5: type 'null_type' does not support field selection"
    );
    let e = compile_error("has('s'.x)", &admission());
    assert!(
        e.ends_with("type 'string' does not support field selection"),
        "{e}"
    );
    assert!(compile("dyn(null).x == 1", &admission()).is_ok());
}

#[test]
fn namespace_object_is_typed() {
    for ok in [
        "namespaceObject.metadata.name == 'test'",
        "'env' in namespaceObject.metadata.labels && namespaceObject.metadata.labels.env == 'x'",
        "namespaceObject.spec.finalizers[0] == 'kubernetes'",
        "namespaceObject.status.phase == 'Active'",
        "has(namespaceObject.metadata.annotations)",
        "namespaceObject.metadata.generation > 1",
        "namespaceObject == null || namespaceObject.status.conditions.all(c, c.type != '')",
        // A comprehension variable of the same name is not the Namespace.
        "[{'a': 1}].all(namespaceObject, namespaceObject.a == 1)",
    ] {
        assert!(compile(ok, &admission()).is_ok(), "{ok}");
    }
    assert_eq!(
        compile_error(
            "size(namespaceObject.metadata.managedFields) == 1",
            &admission()
        ),
        "compilation failed: ERROR: <input>:1:30: undefined field 'managedFields'"
    );
    assert_eq!(
        compile_error(
            "has(namespaceObject.metadata.ownerReferences)",
            &admission()
        ),
        "compilation failed: ERROR: <input>:1:4: undefined field 'ownerReferences'"
    );
    assert_eq!(
        compile_error("namespaceObject.kind == 'Namespace'", &admission()),
        "compilation failed: ERROR: <input>:1:16: undefined field 'kind'"
    );
    // The declared fields have their types.
    let e = compile_error("namespaceObject.metadata.name == 1", &admission());
    assert!(
        e.ends_with("found no matching overload for '_==_' applied to '(string, int)'"),
        "{e}"
    );
    let name = compile("namespaceObject.metadata.name", &admission()).unwrap();
    assert_eq!(name.output_type(), ResultType::String);
    // Undeclared, the name is an undeclared reference as before.
    let e = compile_error("namespaceObject.x", &Declarations::new(["object"]));
    assert!(
        e.contains("undeclared reference to 'namespaceObject'"),
        "{e}"
    );
    // At run time it is the value bound, and null selects as any null variable.
    let activation = Activation::new().with(
        "namespaceObject",
        json!({"metadata": {"name": "test", "labels": {"env": "prod"}}}),
    );
    assert_eq!(
        eval("namespaceObject.metadata.labels.env", &activation),
        Ok(json!("prod"))
    );
    assert_eq!(
        eval("namespaceObject.metadata.name", &Activation::new()),
        Err(EvalError::Failed("no such key: metadata".into()))
    );
}

/// An object whose labels are not written in key order.
fn unordered_labels() -> Value {
    json!({"metadata": {"labels": {"f": "6", "a": "1", "d": "4", "b": "2", "c": "3", "e": "5"}}})
}

/// `object` bound as `object`, read in place (`borrowing`) and converted up front
/// (`with`), ten times each, alternately.
fn object_read_both_ways(object: &Value) -> impl Iterator<Item = Activation<'_>> {
    (0..20).map(move |i| {
        if i % 2 == 0 {
            Activation::new().with_value("object", ActivationValue::borrowing(object))
        } else {
            Activation::new().with("object", object.clone())
        }
    })
}

#[test]
fn comprehensions_over_an_object_visit_its_keys_sorted() {
    // A built CEL map visits its keys in its hash table's order, new in every map: the
    // same message came out differently from run to run. Read in place (`borrowing`) or
    // converted up front (`with`), an object's maps visit them sorted.
    let object = unordered_labels();
    for activation in object_read_both_ways(&object) {
        assert_eq!(
            eval("object.metadata.labels.map(k, k).join(',')", &activation),
            Ok(json!("a,b,c,d,e,f"))
        );
        assert_eq!(
            eval(
                "object.metadata.labels.filter(k, k > 'b').join('')",
                &activation
            ),
            Ok(json!("cdef"))
        );
        assert_eq!(
            eval("object.metadata.labels.all(k, size(object.metadata.labels[k]) == 1) && object.metadata.labels.exists_one(k, k == 'a')", &activation),
            Ok(json!(true))
        );
    }
}

#[test]
fn comprehensions_over_maps_an_expression_built_visit_their_keys_sorted() {
    // Maps an expression builds (literals, `transformMap` results) are the `cel` crate's,
    // whose hash order is new in every map; a comprehension visits their keys sorted all
    // the same, so each run writes the same list.
    let object = unordered_labels();
    let activation = Activation::new().with_value("object", ActivationValue::borrowing(&object));
    let cases = [
        (
            "{'f': 6, 'a': 1, 'd': 4, 'b': 2, 'c': 3, 'e': 5}.map(k, k).join(',')",
            json!("a,b,c,d,e,f"),
        ),
        (
            "{'f': 6, 'a': 1, 'd': 4, 'b': 2, 'c': 3, 'e': 5}.filter(k, k > 'b')",
            json!(["c", "d", "e", "f"]),
        ),
        (
            "object.metadata.labels.transformMap(k, v, v + v).map(k, k).join('')",
            json!("abcdef"),
        ),
        (
            "[{'f': 6, 'a': 1, 'd': 4, 'b': 2, 'c': 3, 'e': 5}].map(m, m.map(k, k))[0]",
            json!(["a", "b", "c", "d", "e", "f"]),
        ),
    ];
    for _ in 0..10 {
        for (source, expected) in &cases {
            assert_eq!(eval(source, &activation), Ok(expected.clone()), "{source}");
        }
    }
}

#[test]
fn two_variable_comprehensions_over_maps_visit_their_keys_sorted() {
    // `transformList(k, v, …)` over a map lists its entries: in key order, whether the map
    // is the object's or one the expression built.
    let object = unordered_labels();
    for activation in object_read_both_ways(&object) {
        assert_eq!(
            eval(
                "object.metadata.labels.transformList(k, v, k + v).join(',')",
                &activation
            ),
            Ok(json!("a1,b2,c3,d4,e5,f6"))
        );
        assert_eq!(
            eval(
                "{'f': 6, 'a': 1, 'd': 4, 'b': 2, 'c': 3, 'e': 5}.transformList(k, v, k + string(v)).join(',')",
                &activation
            ),
            Ok(json!("a1,b2,c3,d4,e5,f6"))
        );
    }
}

/// Evaluates `source` ten times: each fails with an error that contains `part`.
fn fails_alike_every_time(source: &str, part: &str) {
    for _ in 0..10 {
        let e = eval(source, &Activation::new()).unwrap_err();
        assert!(format!("{e:?}").contains(part), "{source}: {e:?}");
    }
}

#[test]
fn of_two_duplicate_keys_transform_map_entry_names_the_first_in_key_order() {
    fails_alike_every_time(
        "{'x': 1, 'y': 2}.transformMapEntry(k, v, {'f': 1, 'e': 2, 'd': 3, 'c': 4, 'b': 5})",
        "insert failed: key b already exists",
    );
}

#[test]
fn a_map_of_mixed_values_is_named_by_its_least_key_in_every_run() {
    fails_alike_every_time(
        "[{'f': 1, 'e': dyn('x'), 'd': 3, 'c': 4, 'b': dyn(true)}].sum()",
        "list(map(string, bool))",
    );
}
