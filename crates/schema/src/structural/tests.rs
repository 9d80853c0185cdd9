//! CRD-time rules against upstream's expectations (`test/integration/validation_test.go`
//! schemas and `pkg/apis/apiextensions/validation` messages).

use super::*;
use serde_json::json;

const P: &str = "spec.validation.openAPIV3Schema";

fn crd(spec_extra: Value, version_extra: Value, schema: Value) -> Value {
    let mut version = json!({"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema}});
    version
        .as_object_mut()
        .unwrap()
        .extend(version_extra.as_object().unwrap().clone());
    let mut spec = json!({
        "group": "tests.example.com", "scope": "Namespaced",
        "names": {"plural": "foos", "singular": "foo", "kind": "Foo", "listKind": "FooList"},
        "versions": [version]
    });
    spec.as_object_mut()
        .unwrap()
        .extend(spec_extra.as_object().unwrap().clone());
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "foos.tests.example.com"}, "spec": spec})
}

fn errors_of(crd: &Value) -> Vec<String> {
    validate_crd(crd).iter().map(ToString::to_string).collect()
}

fn errors(schema: Value) -> Vec<String> {
    errors_of(&crd(json!({}), json!({}), schema))
}

fn assert_contains(got: &[String], want: &[&str]) {
    for w in want {
        assert!(got.iter().any(|g| g == w), "missing {w:?} in {got:#?}");
    }
}

#[test]
fn kubectl_validate_typo_is_the_only_error() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"message": {"type": "strign", "description": "a message to display"}}}}});
    assert_eq!(
        errors(schema),
        [format!(
            r#"{P}.properties[spec].properties[message].type: Unsupported value: "strign": supported values: "array", "boolean", "integer", "number", "object", "string""#
        )]
    );
}

#[test]
fn junctors_carry_value_validations_only() {
    let generic = json!({"type": "string", "additionalProperties": true, "title": "hello", "description": "world", "nullable": true});
    let got = errors(json!({
        "type": "object", "properties": {"foo": {"type": "string"}},
        "not": generic, "allOf": [{"properties": {"foo": generic}}],
        "anyOf": [{"items": generic}], "oneOf": [{"properties": {"foo": generic}}]
    }));
    let mut want = Vec::new();
    for at in [
        "anyOf[0].items",
        "allOf[0].properties[foo]",
        "oneOf[0].properties[foo]",
        "not",
    ] {
        want.push(format!(
            "{P}.{at}.type: Forbidden: must be empty to be structural"
        ));
        want.push(format!(
            "{P}.{at}.additionalProperties: Forbidden: must be undefined to be structural"
        ));
        want.push(format!(
            "{P}.{at}.title: Forbidden: must be empty to be structural"
        ));
        want.push(format!(
            "{P}.{at}.description: Forbidden: must be empty to be structural"
        ));
        want.push(format!(
            "{P}.{at}.nullable: Forbidden: must be false to be structural"
        ));
    }
    want.push(format!(
        "{P}.items: Required value: because it is defined in {P}.anyOf[0].items"
    ));
    assert_contains(&got, &want.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!got.iter().any(|e| e.contains("not.default")));
    let mut sorted = got.clone();
    sorted.sort();
    assert_eq!(got, sorted, "structural errors come sorted");
}

#[test]
fn extensions_are_forbidden_under_junctors() {
    let props = json!({"int-or-string": {"x-kubernetes-int-or-string": true},
        "embedded-resource": {"x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}});
    let got = errors(json!({
        "type": "object",
        "properties": {"int-or-string": {"x-kubernetes-int-or-string": true},
            "embedded-resource": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}},
        "not": {"properties": props}, "allOf": [{"properties": props}], "anyOf": [{"properties": props}], "oneOf": [{"properties": props}]
    }));
    for j in ["allOf[0]", "anyOf[0]", "oneOf[0]", "not"] {
        assert_contains(&got, &[
            &format!("{P}.{j}.properties[embedded-resource].x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural"),
            &format!("{P}.{j}.properties[embedded-resource].x-kubernetes-embedded-resource: Forbidden: must be false to be structural"),
            &format!("{P}.{j}.properties[int-or-string].x-kubernetes-int-or-string: Forbidden: must be false to be structural"),
        ]);
    }
}

#[test]
fn missing_types_by_level() {
    let got = errors(json!({"properties": {
        "foo": {"properties": {"a": {}}},
        "abc": {"additionalProperties": {"properties": {"a": {"items": {"additionalProperties": {"items": null}}}}}},
        "json": {"x-kubernetes-preserve-unknown-fields": true, "properties": {"a": {}}},
        "int-or-string": {"x-kubernetes-int-or-string": true, "properties": {"a": {}}}
    }}));
    let want = [
        "properties[foo].properties[a].type: Required value: must not be empty for specified object fields",
        "properties[int-or-string].properties[a].type: Required value: must not be empty for specified object fields",
        "properties[json].properties[a].type: Required value: must not be empty for specified object fields",
        "properties[abc].additionalProperties.properties[a].items.additionalProperties.type: Required value: must not be empty for specified object fields",
        "properties[abc].additionalProperties.properties[a].items.type: Required value: must not be empty for specified array items",
        "properties[abc].type: Required value: must not be empty for specified object fields",
        "type: Required value: must not be empty at the root",
    ];
    assert_contains(
        &got,
        &want
            .map(|w| format!("{P}.{w}"))
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(!got
        .iter()
        .any(|e| e.contains("[json].type") || e.contains("[int-or-string].type")));
}

#[test]
fn int_or_string_exceptions() {
    let any_of = json!([{"type": "integer"}, {"type": "string"}]);
    let got = errors(json!({"type": "object", "properties": {
        "a": {"x-kubernetes-int-or-string": true},
        "b": {"x-kubernetes-int-or-string": true, "anyOf": any_of, "allOf": [{"pattern": "abc"}]},
        "c": {"x-kubernetes-int-or-string": true, "allOf": [{"anyOf": any_of}, {"pattern": "abc"}]},
        "d": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string", "pattern": "abc"}]},
        "g": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "string"}, {"type": "integer"}]}
    }}));
    assert_contains(
        &got,
        &[
            &format!("{P}.properties[d].anyOf[0].type: Forbidden: must be empty to be structural"),
            &format!("{P}.properties[d].anyOf[1].type: Forbidden: must be empty to be structural"),
            &format!("{P}.properties[g].anyOf[0].type: Forbidden: must be empty to be structural"),
        ],
    );
    assert!(
        !got.iter().any(|e| e.contains("properties[a]")
            || e.contains("properties[b]")
            || e.contains("properties[c]")),
        "{got:#?}"
    );
}

#[test]
fn complete_structural_schema_is_accepted() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "array", "items": {"type": "string"}}}},
            "d": {"type": "array", "items": {"type": "string"}}, "e": {"type": "string"}},
        "not": {"properties": {"a": {}, "b": {"not": {"properties": {"a": {}, "b": {"items": {}}}}}, "d": {"items": {}}}},
        "allOf": [{"properties": {"e": {}}}]
    });
    assert_eq!(errors(schema), Vec::<String>::new());
}

#[test]
fn root_metadata_restrictions() {
    let m =
        |metadata: Value| errors(json!({"type": "object", "properties": {"metadata": metadata}}));
    let forbidden = format!("{P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified");
    assert_contains(&m(json!({"minimum": 42.0})), &[&forbidden]);
    assert_contains(
        &m(json!({"type": "object", "properties": {"labels": {"type": "object"}}})),
        &[&forbidden],
    );
    assert_contains(
        &m(json!({"type": "string"})),
        &[&format!(
            r#"{P}.properties[metadata].type: Invalid value: "string": must be object"#
        )],
    );
    for ok in [
        json!({"type": "object", "properties": {"name": {"type": "string", "pattern": "^[a-z]+$"}}}),
        json!({"type": "object", "properties": {"name": {"type": "string"}, "generateName": {"type": "string"}}}),
    ] {
        assert_eq!(m(ok), Vec::<String>::new());
    }
    let got = errors(
        json!({"type": "object", "properties": {"metadata": {"type": "object"}},
        "allOf": [{"properties": {"metadata": {}}}], "not": {"properties": {"metadata": {}}}}),
    );
    assert_contains(&got, &[
        &format!("{P}.allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context"),
        &format!("{P}.not.properties[metadata]: Forbidden: must not be specified in a nested context"),
    ]);
    let defaulted = errors(
        json!({"type": "object", "properties": {"metadata": {"type": "object", "default": {}}}}),
    );
    assert_eq!(
        defaulted,
        [format!(
            "{P}.properties[metadata].default: Forbidden: must not be set in top-level metadata"
        )]
    );
}

#[test]
fn keyword_rules() {
    let got = errors(json!({"type": "object", "properties": {
        "a": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": false},
        "b": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
        "c": {"type": "null"},
        "d": {"type": "string", "x-kubernetes-preserve-unknown-fields": false},
        "e": {"type": "object", "additionalProperties": true, "properties": {"x": {"type": "string"}}}
    }, "$ref": "#/x"}));
    assert_contains(&got, &[
        &format!("{P}.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"),
        &format!("{P}.properties[b].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"),
        &format!("{P}.properties[c].type: Forbidden: type cannot be set to null, use nullable as an alternative"),
        &format!("{P}.properties[d].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined"),
        &format!("{P}.$ref: Forbidden: $ref is not supported"),
    ]);
    assert!(!got
        .iter()
        .any(|e| e.contains("properties[e].additionalProperties")));
    assert_eq!(
        errors(json!({"type": "object", "nullable": true})),
        [format!(
            "{P}.nullable: Forbidden: nullable cannot be true at the root"
        )]
    );
    assert_eq!(
        errors(json!({"type": "object", "$schema": "x"})),
        [format!(
            r#"{P}: Invalid value: "": OpenAPIV3Schema 'schema' is not supported"#
        )]
    );
}

#[test]
fn list_and_map_types() {
    let got = errors(json!({"type": "object", "properties": {
        "a": {"type": "string", "x-kubernetes-list-type": "set"},
        "b": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "bag"},
        "c": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}, "o": {"type": "object"}}},
              "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k", "o", "z", "k"]},
        "d": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-map-keys": ["k"]},
        "e": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object", "nullable": true}},
        "f": {"type": "string", "x-kubernetes-map-type": "flat"}
    }}));
    let keys = r#"["k","o","z","k"]"#;
    assert_contains(&got, &[
        &format!(r#"{P}.properties[a].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified"#),
        &format!(r#"{P}.properties[b].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map""#),
        &format!(r#"{P}.properties[c].items.properties[o].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map"#),
        &format!("{P}.properties[c].x-kubernetes-list-map-keys: Invalid value: {keys}: entries must all be names of item properties"),
        &format!("{P}.properties[c].x-kubernetes-list-map-keys: Invalid value: {keys}: must not contain duplicate entries"),
        &format!("{P}.properties[c].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"),
        &format!("{P}.properties[d].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty"),
        &format!("{P}.properties[e].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set"),
        &format!("{P}.properties[e].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set"),
        &format!(r#"{P}.properties[f].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified"#),
        &format!(r#"{P}.properties[f].x-kubernetes-map-type: Unsupported value: "flat": supported values: "atomic", "granular""#),
    ]);
}

#[test]
fn validation_rule_shapes() {
    let got = errors(
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "x-kubernetes-validations": [
            {"rule": "  "},
            {"rule": "self.a == 'x'", "message": " "},
            {"rule": "self.a ==\n'x'"},
            {"rule": "true", "messageExpression": "  ", "reason": "Nope", "fieldPath": ".b"},
            {"rule": "true", "fieldPath": ".a"}
        ]}),
    );
    let v = format!("{P}.x-kubernetes-validations");
    assert_eq!(got, [
        format!("{v}[0].rule: Required value: rule is not specified"),
        format!(r#"{v}[1].message: Invalid value: " ": must be non-empty if specified"#),
        format!("{v}[2].message: Required value: message must be specified if rule contains line breaks"),
        format!("{v}[3].messageExpression: Required value: messageExpression must be non-empty if specified"),
        format!(r#"{v}[3].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired""#),
        format!(r#"{v}[3].fieldPath: Invalid value: ".b": must be a valid path"#),
    ]);
}

#[test]
fn defaults_must_be_pruned() {
    let got = errors(
        json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"a": {"type": "string"}}, "default": {"a": "x", "b": 1}}}}),
    );
    assert_eq!(
        got,
        [format!(
            r#"{P}.properties[spec].default: Invalid value: {{"a":"x","b":1}}: must not have unknown fields"#
        )]
    );
}

#[test]
fn status_subresource_restricts_the_root() {
    let with_status = |schema: Value| {
        errors_of(&crd(
            json!({}),
            json!({"subresources": {"status": {}}}),
            schema,
        ))
    };
    assert_eq!(
        with_status(
            json!({"type": "object", "description": "d", "properties": {"status": {"type": "object"}}})
        ),
        Vec::<String>::new()
    );
    let got = with_status(
        json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "anyOf": [{"required": ["a"]}],
        "properties": {"a": {"type": "string"}}}),
    );
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(got[0].starts_with(&format!("{P}: Invalid value: {{")));
    assert!(got[0].ends_with(": only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled"));
}

#[test]
fn crd_level_rules() {
    let mut c = crd(
        json!({"preserveUnknownFields": true, "scope": "Everywhere"}),
        json!({"name": "V1", "deprecationWarning": "x"}),
        json!({"type": "object"}),
    );
    c["metadata"]["name"] = json!("bars.tests.example.com");
    c["spec"]["names"]["shortNames"] = json!(["ok", "Not_OK"]);
    let got = errors_of(&c);
    let label = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
    assert_eq!(got, [
        r#"metadata.name: Invalid value: "bars.tests.example.com": must be spec.names.plural+"."+spec.group"#.to_owned(),
        r#"spec.scope: Unsupported value: "Everywhere": supported values: "Cluster", "Namespaced""#.to_owned(),
        format!(r#"spec.versions[0].name: Invalid value: "V1": {label}"#),
        r#"spec.versions[0].deprecationWarning: Invalid value: "x": can only be set for deprecated versions"#.to_owned(),
        format!(r#"spec.version: Invalid value: "V1": {label}"#),
        format!(r#"spec.names.shortNames[1]: Invalid value: "Not_OK": {label}"#),
        "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead".to_owned(),
    ]);
}

#[test]
fn conversion_and_approval() {
    let webhook = json!({"conversion": {"strategy": "Webhook", "webhook": {"clientConfig": {"service": {"namespace": "ns"}}, "conversionReviewVersions": ["v2"]}}});
    let mut c = crd(webhook, json!({}), json!({"type": "object"}));
    c["spec"]["group"] = json!("tests.k8s.io");
    c["metadata"]["name"] = json!("foos.tests.k8s.io");
    assert_eq!(errors_of(&c), [
        "spec.conversion.webhookClientConfig.service.namespace: Required value: service namespace is required",
        r#"spec.conversion.conversionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1"#,
        r#"metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111"#,
    ]);
}

#[test]
fn schemas_are_reported_per_version_when_they_differ() {
    let mut c = crd(
        json!({}),
        json!({}),
        json!({"type": "object", "properties": {"a": {}}}),
    );
    let second = json!({"name": "v2", "served": true, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}});
    c["spec"]["versions"].as_array_mut().unwrap().push(second);
    assert_eq!(errors_of(&c), ["spec.versions[0].schema.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields"]);
    let mut no_schema = crd(json!({}), json!({}), json!({}));
    no_schema["spec"]["versions"][0]
        .as_object_mut()
        .unwrap()
        .remove("schema");
    assert_eq!(
        errors_of(&no_schema),
        ["spec.versions[0].schema.openAPIV3Schema: Required value"]
    );
}

#[test]
fn warnings_for_unknown_string_formats() {
    let c = crd(
        json!({}),
        json!({}),
        json!({"type": "object", "properties": {
        "a": {"type": "string", "format": "xyz"}, "b": {"type": "integer", "format": "int64"},
        "c": {"type": "string", "format": "date-time"}, "d": {"type": "string", "format": "xyz"}}}),
    );
    assert_eq!(crd_warnings(&c), [r#"unrecognized format "xyz""#]);
}

#[test]
fn not_a_crd() {
    let texts: Vec<String> = validate_crd(&json!({"apiVersion": "v1", "kind": "ConfigMap"}))
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        texts,
        [
            r#"kind: Invalid value: "ConfigMap": must be CustomResourceDefinition"#,
            r#"apiVersion: Unsupported value: "v1": supported values: "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1""#,
        ]
    );
}

/// kube-openapi names the value itself "", hence the double space Go prints too.
#[test]
fn defaults_validate_against_their_schema() {
    let got = errors(json!({"type": "object", "properties": {
        "n": {"type": "integer", "default": "x"},
        "s": {"type": "object", "properties": {"r": {"type": "integer", "maximum": 3}}, "default": {"r": 5}},
        "e": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true,
              "default": {"apiVersion": "v1"}}
    }}));
    assert_eq!(got, [
        format!(r#"{P}.properties[n].default: Invalid value: "string":  in body must be of type integer: "string""#),
        format!("{P}.properties[s].default.r: Invalid value: 5: r in body should be less than or equal to 3"),
        format!("{P}.properties[e].default.kind: Required value"),
    ]);
}

#[test]
fn metadata_defaults_and_rules() {
    let got = errors(json!({"type": "object", "properties": {
        "e": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {
            "metadata": {"type": "object", "properties": {"name": {"type": "string", "default": "a/b"}}}}},
        "r": {"type": "integer", "default": 1, "x-kubernetes-validations": [{"rule": "self > 1"}]}
    }}));
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(got[0].starts_with(&format!(
        r#"{P}.properties[e].properties[metadata].properties[name].default: Invalid value: "a/b": must result in valid metadata: metadata.name: Invalid value: "a/b": "#
    )));
    assert_eq!(
        got[1],
        format!("{P}.properties[r].default: Invalid value: 1: failed rule: self > 1")
    );
    let compile = errors(
        json!({"type": "object", "properties": {"a": {"type": "string"}},
        "x-kubernetes-validations": [{"rule": "self.a == 1"}]}),
    );
    assert_eq!(compile.len(), 1, "{compile:#?}");
    assert!(compile[0].starts_with(&format!(
        "{P}.x-kubernetes-validations[0].rule: Invalid value: "
    )));
}
