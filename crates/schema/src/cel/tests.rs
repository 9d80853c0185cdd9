//! Rules evaluated end to end: the URL library and the type conversions, with the texts
//! the API server prints.

use super::{compile, compile_unchecked};
use crate::field_error::FieldError;
use crate::schema::Schema;
use serde_json::{json, Value};

/// `{"s": string, "d": dyn (int-or-string), "n": number}` with `rule` at the root.
fn schema(rule: &str) -> Schema {
    Schema::from_value(&json!({
        "type": "object",
        "properties": {
            "s": {"type": "string"},
            "d": {"x-kubernetes-int-or-string": true},
            "n": {"type": "number"}
        },
        "x-kubernetes-validations": [{"rule": rule}]
    }))
    .unwrap()
}

/// The errors of `rule` on `value`, compiled as a stored CRD (compile errors reported
/// when evaluated).
fn run(rule: &str, value: Value) -> Vec<String> {
    let schema = schema(rule);
    let outcome = compile_unchecked(&schema).validate(&value, &schema, false);
    outcome.errors.iter().map(FieldError::to_string).collect()
}

/// The one error of `rule` on `{"s": s}`, or `None` when it passes.
fn on_string(rule: &str, s: &str) -> Option<String> {
    let errors = run(rule, json!({ "s": s }));
    assert!(errors.len() <= 1, "{errors:?}");
    errors.into_iter().next()
}

fn evaluation_error(text: &str, rule: &str) -> String {
    format!("<nil>: Invalid value: \"object\": {text} evaluating rule: {rule}")
}

#[test]
fn is_url_is_parse_request_uri() {
    for bad in [
        "http://a b",
        "http://x#y@z",
        "http://%zz",
        "#%blah$#@",
        "foo",
        "",
    ] {
        assert!(on_string("isURL(self.s)", bad).is_some(), "{bad:?}");
    }
    for good in [
        "https://user:pass@example.com:80/path?query=val#fragment",
        "/path",
        "*",
        "mailto:someone@example.com",
        "http://a/b c",
    ] {
        assert_eq!(on_string("isURL(self.s)", good), None, "{good:?}");
    }
}

#[test]
fn url_errors_are_the_api_servers() {
    let rule = "url(self.s).getScheme() == 'http'";
    for (s, why) in [
        (
            "http://a b",
            r#"parse "http://a b": invalid character " " in host name"#,
        ),
        (
            "http://x#y@z",
            r#"parse "http://x#y@z": net/url: invalid userinfo"#,
        ),
        (
            "http://%zz",
            r#"parse "http://%zz": invalid URL escape "%zz""#,
        ),
        (
            "#%blah$#@",
            r##"parse "#%blah$#@": invalid URI for request"##,
        ),
    ] {
        let text = format!("URL parse error during conversion from string: {why}");
        assert_eq!(on_string(rule, s), Some(evaluation_error(&text, rule)));
    }
    // format.uri() gives ParseRequestURI's text as it is.
    let why = r#"parse "http://a b": invalid character " " in host name"#;
    let rule = format!("format.uri().validate(self.s) == optional.of([{why:?}])");
    assert_eq!(on_string(&rule, "http://a b"), None);
    let rule = "format.uri().validate(self.s) == optional.none()";
    assert_eq!(on_string(rule, "http://ok/"), None);
}

#[test]
fn url_getters_read_what_go_reads() {
    for rule in [
        "url('HTTPS://example.com/').getScheme() == 'https'",
        "url('https://example.com/a%2Fb').getEscapedPath() == '/a%2Fb'",
        "url('https://example.com/a b').getEscapedPath() == '/a%20b'",
        "url('//host/p').getHost() == 'host'",
        "url('http://[fe80::1%25en0]:8080/').getHostname() == 'fe80::1%en0'",
        "url('http://[fe80::1%25en0]:8080/').getPort() == '8080'",
        "url('https://h/p?a=1&a=2&b=%zz&c=x+y').getQuery() == {'a': ['1', '2'], 'c': ['x y']}",
        "url('https://h/p?q=1#frag').getQuery() == {'q': ['1']}",
    ] {
        assert_eq!(run(rule, json!({})), Vec::<String>::new(), "{rule}");
    }
}

#[test]
fn runtime_conversion_errors_are_cel_gos() {
    for (rule, s, text) in [
        (
            "int(self.s) > 0",
            "acd",
            "type conversion error from 'string' to 'int'",
        ),
        (
            "int(self.s) > 0",
            "1_000",
            "type conversion error from 'string' to 'int'",
        ),
        (
            "int(self.s) > 0",
            "9223372036854775808",
            "type conversion error from 'string' to 'int'",
        ),
        (
            "uint(self.s) > 0u",
            "-1",
            "type conversion error from 'string' to 'uint'",
        ),
        (
            "uint(self.s) > 0u",
            "+1",
            "type conversion error from 'string' to 'uint'",
        ),
        (
            "double(self.s) > 0.0",
            "abc",
            "type conversion error from 'string' to 'double'",
        ),
        (
            "double(self.s) > 0.0",
            "1e400",
            "type conversion error from 'string' to 'double'",
        ),
        (
            "bool(self.s)",
            "yes",
            "type conversion error from 'string' to 'bool'",
        ),
        (
            "duration(self.s) > duration('0s')",
            "abc",
            "type conversion error from 'string' to 'google.protobuf.Duration'",
        ),
        (
            "duration(self.s) > duration('0s')",
            "1d",
            "type conversion error from 'string' to 'google.protobuf.Duration'",
        ),
        (
            "duration(self.s) > duration('0s')",
            "3000000h",
            "type conversion error from 'string' to 'google.protobuf.Duration'",
        ),
        (
            "timestamp(self.s) > timestamp(0)",
            "yesterday",
            "type conversion error from 'string' to 'google.protobuf.Timestamp'",
        ),
        (
            "timestamp(self.s) > timestamp(0)",
            "0000-01-01T00:00:00Z",
            "timestamp overflow",
        ),
    ] {
        assert_eq!(
            on_string(rule, s),
            Some(evaluation_error(text, rule)),
            "{rule} on {s:?}"
        );
    }
    // Conversions of other types keep the standard library's texts, which are cel-go's.
    for (rule, value, text) in [
        ("int(self.n) > 0", json!({"n": 1e19}), "integer overflow"),
        (
            "uint(self.n) > 0u",
            json!({"n": -1.5}),
            "unsigned integer overflow",
        ),
        (
            "uint(self.d) > 0u",
            json!({"d": -1}),
            "unsigned integer overflow",
        ),
        (
            "timestamp(self.d) > timestamp(0)",
            json!({"d": 253402300800i64}),
            "timestamp overflow",
        ),
    ] {
        assert_eq!(run(rule, value), [evaluation_error(text, rule)], "{rule}");
    }
}

#[test]
fn conversions_accept_what_go_accepts() {
    for rule in [
        "int('+5') == 5 && int('-0') == 0",
        "uint('18446744073709551615') == 18446744073709551615u",
        "double('1_000.5') == 1000.5 && double('0x1p-2') == 0.25",
        "double('-Inf') < 0.0 && double('NaN') != double('NaN')",
        "bool('T') && !bool('F') && bool('1') && !bool('False')",
        "duration('1.5h') == duration('90m') && duration('+1h') == duration('60m')",
        "duration('.5h') == duration('30m') && duration('-1h1.5s') < duration('0s')",
        "duration('2562047h47m16.854775807s') > duration('0s')",
        "timestamp('2011-08-18T19:03:37.01+01:00') == timestamp('2011-08-18T18:03:37.01Z')",
        "timestamp(253402300799) > timestamp(0)",
        "int(uint(5)) == 5 && int(2.9) == 2 && int(timestamp(7)) == 7",
    ] {
        assert_eq!(run(rule, json!({})), Vec::<String>::new(), "{rule}");
    }
    // Through dyn values and schema strings.
    assert!(run("int(self.d) == 7", json!({"d": "7"})).is_empty());
    assert!(on_string("duration(self.s) == duration('3723004ms')", "1h2m3s4ms").is_none());
    assert!(on_string("bool(self.s)", "t").is_none());
}

#[test]
fn a_conversion_of_a_constant_fails_when_the_program_is_built() {
    // cel-go's OptOptimize evaluates it while planning, short circuit or not.
    for (rule, text) in [
        (
            "int('acd') == 1",
            "type conversion error from 'string' to 'int'",
        ),
        ("true || uint(-0.5) != 1u", "unsigned integer overflow"),
        (
            "bool('10.0.0.0/8')",
            "type conversion error from 'string' to 'bool'",
        ),
        (
            "int(string(1.5e300)) == 1",
            "type conversion error from 'string' to 'int'",
        ),
        (
            "string(b'\\xff') == ''",
            "invalid UTF-8 in bytes, cannot convert to string",
        ),
    ] {
        let detail = format!("program instantiation failed: {text}");
        assert_eq!(
            run(rule, json!({})),
            [format!(
                "<nil>: Invalid value: \"object\": rule compile error: {detail}"
            )],
            "{rule}"
        );
        // (No `<`, `>` or `&` in these rules: Go's JSON escapes them in the bad value.)
        let errors = compile(&schema(rule)).unwrap_err();
        assert_eq!(
            errors[0].to_string(),
            format!(
                "x-kubernetes-validations[0].rule: Invalid value: {}: {detail}",
                json!({ "rule": rule })
            ),
            "{rule}"
        );
    }
    // In a messageExpression the API server words it differently.
    let schema = Schema::from_value(&json!({
        "type": "object",
        "x-kubernetes-validations": [{"rule": "true", "messageExpression": "string(int('x'))"}]
    }))
    .unwrap();
    let errors = compile(&schema).unwrap_err();
    assert!(
        errors[0].to_string().ends_with(
            ": messageExpression instantiation failed: type conversion error from 'string' to 'int'"
        ),
        "{errors:?}"
    );
    // A compile error anywhere comes first.
    let errors = run("int('x') == 1 && self.nope", json!({}));
    assert!(errors[0].contains("compilation failed"), "{errors:?}");
    // Not constants: evaluated at run time only.
    assert!(run("self.s == '' || int(self.s) > 0", json!({"s": ""})).is_empty());
}

#[test]
fn literal_timestamps_are_validated_as_cel_go_does() {
    for rule in [
        "timestamp('1000-00-00T00:00:00Z') > timestamp(0)",
        "timestamp(-62135596801) > timestamp(0)",
        "timestamp('2011-08-18t19:03:37Z') > timestamp(0)",
    ] {
        let errors = compile(&schema(rule)).unwrap_err();
        assert!(
            errors[0]
                .to_string()
                .ends_with("compilation failed: ERROR: <input>:1:11: invalid timestamp argument"),
            "{rule}: {errors:?}"
        );
    }
}

#[test]
fn a_rules_comprehension_over_a_map_visits_its_keys_sorted() {
    // A built CEL map visits its keys in its hash table's order, new in every map: the
    // message below came out differently from run to run.
    let schema = Schema::from_value(&json!({
        "type": "object",
        "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"}}},
        "x-kubernetes-validations": [{
            "rule": "false",
            "messageExpression": "self.labels.map(k, k).join(',') + ' ' + self.map(k, k).join(',')"
        }]
    }))
    .unwrap();
    let value = json!({"labels": {"f": "6", "a": "1", "d": "4", "b": "2", "c": "3", "e": "5"}});
    let rules = compile(&schema).unwrap();
    for _ in 0..20 {
        let errors: Vec<String> = rules
            .validate(&value, &schema, false)
            .errors
            .iter()
            .map(FieldError::to_string)
            .collect();
        assert_eq!(errors, ["<nil>: Invalid value: a,b,c,d,e,f labels"]);
    }
}
