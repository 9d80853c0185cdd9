use super::*;
use serde_json::json;

fn texts(errors: Vec<FieldError>) -> Vec<String> {
    errors.iter().map(ToString::to_string).collect()
}

fn schema(v: Value) -> Schema {
    Schema::from_value(&v).unwrap()
}

const SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

#[test]
fn names_as_kubectl_validate_reports_them() {
    assert_eq!(
        texts(validate_object_meta(
            &json!({"name": "x.com^2"}),
            false,
            "metadata"
        )),
        [format!(
            "metadata.name: Invalid value: \"x.com^2\": {SUBDOMAIN}"
        )]
    );
    assert_eq!(
        texts(validate_object_meta(&json!({}), false, "metadata")),
        ["metadata.name: Required value: name or generateName is required"]
    );
    let long = "thisisaveryveryveryveryveryveryverylongname".repeat(6);
    assert_eq!(
        texts(validate_object_meta(
            &json!({"name": long}),
            false,
            "metadata"
        )),
        [format!(
            "metadata.name: Invalid value: \"{long}\": must be no more than 253 characters"
        )]
    );
}

#[test]
fn labels_report_the_bad_key_or_value_at_the_labels_path() {
    assert_eq!(
        texts(validate_object_meta(&json!({"name": "x", "labels": {"owner": "_", "a b": null}}), false, "metadata")),
        [
            "metadata.labels: Invalid value: \"_\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            "metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ]
    );
}

#[test]
fn namespaces_follow_the_scope() {
    assert_eq!(
        texts(validate_object_meta(
            &json!({"name": "x"}),
            true,
            "metadata"
        )),
        ["metadata.namespace: Required value"]
    );
    assert_eq!(
        texts(validate_object_meta(
            &json!({"name": "x", "namespace": "a.b"}),
            true,
            "metadata"
        )),
        ["metadata.namespace: Invalid value: \"a.b\": must not contain dots"]
    );
    assert_eq!(
        texts(validate_object_meta(
            &json!({"name": "x", "namespace": "ns"}),
            false,
            "metadata"
        )),
        ["metadata.namespace: Forbidden: not allowed on this type"]
    );
}

#[test]
fn generate_name_stands_in_for_a_name_but_is_checked_as_a_prefix() {
    assert!(validate_object_meta(&json!({"generateName": "web-"}), false, "metadata").is_empty());
    assert_eq!(
        texts(validate_object_meta(
            &json!({"generateName": "Web-"}),
            false,
            "metadata"
        )),
        [format!(
            "metadata.generateName: Invalid value: \"Web-\": {SUBDOMAIN}"
        )]
    );
}

#[test]
fn annotations_ignore_key_case_and_are_limited_in_total_size() {
    let big = "x".repeat(256 * 1024);
    assert_eq!(
        texts(validate_object_meta(
            &json!({"name": "x", "annotations": {"Example.com/Key": "v", "k": big}}),
            false,
            "metadata"
        )),
        ["metadata.annotations: Too long: may not be more than 262144 bytes"]
    );
    assert_eq!(
        texts(validate_object_meta(
            &json!({"name": "x", "annotations": {"/k": ""}}),
            false,
            "metadata"
        )),
        ["metadata.annotations: Invalid value: \"/k\": prefix part must be non-empty"]
    );
}

#[test]
fn finalizers_and_owner_references() {
    let meta = json!({
        "name": "x",
        "generation": -1,
        "finalizers": ["orphan", "foregroundDeletion", "a/b/c"],
        "ownerReferences": [
            {"apiVersion": "apps/", "kind": "", "name": "n", "uid": "u", "controller": true},
            {"apiVersion": "v1", "kind": "K", "name": "m", "uid": "", "controller": true}
        ]
    });
    assert_eq!(
        texts(validate_object_meta(&meta, false, "metadata")),
        [
            "metadata.generation: Invalid value: -1: must be greater than or equal to 0",
            "metadata.ownerReferences.apiVersion: Invalid value: \"apps/\": version must not be empty",
            "metadata.ownerReferences.kind: Invalid value: \"\": kind must not be empty",
            "metadata.ownerReferences.uid: Invalid value: \"\": uid must not be empty",
            "metadata.ownerReferences: Invalid value: [{\"apiVersion\":\"apps/\",\"controller\":true,\"kind\":\"\",\"name\":\"n\",\"uid\":\"u\"},{\"apiVersion\":\"v1\",\"controller\":true,\"kind\":\"K\",\"name\":\"m\",\"uid\":\"\"}]: Only one reference can have Controller set to true. Found \"true\" in references for /n and K/m",
            "metadata.finalizers: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
            "metadata.finalizers: Invalid value: [\"orphan\",\"foregroundDeletion\",\"a/b/c\"]: finalizer orphan and foregroundDeletion cannot be both set",
        ]
    );
}

#[test]
fn root_metadata_loses_unknown_keys_and_keeps_its_representation() {
    let mut obj =
        json!({"metadata": {"name": "x", "labels": {}, "foo": 1, "ownerReferences": [{"bar": 2}]}});
    assert_eq!(
        coerce_root_metadata(&mut obj),
        Ok(vec![
            "metadata.foo".to_owned(),
            "metadata.ownerReferences[0].bar".to_owned()
        ])
    );
    assert_eq!(
        obj,
        json!({"metadata": {"name": "x", "labels": {}, "ownerReferences": [{}]}})
    );
    let mut bad = json!({"metadata": {"labels": {"a": 1}, "foo": 1}});
    assert_eq!(
        coerce_root_metadata(&mut bad),
        Err(
            "json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string"
                .to_owned()
        )
    );
}

fn embedded_schema() -> Schema {
    schema(json!({"type": "object", "properties": {
        "embedded": {"type": "object", "x-kubernetes-embedded-resource": true,
                     "x-kubernetes-preserve-unknown-fields": true},
        "list": {"type": "array", "items": {"type": "object", "x-kubernetes-embedded-resource": true,
                 "x-kubernetes-preserve-unknown-fields": true}}
    }}))
}

#[test]
fn embedded_metadata_is_coerced_with_field_paths() {
    let s = embedded_schema();
    let mut obj = json!({
        "metadata": {"unknown": 1},
        "embedded": {"apiVersion": "v1", "kind": "K", "metadata": {"name": "n", "x": 1}},
        "list": [{"metadata": {"y": 1}}]
    });
    let unknown = coerce(&mut obj, Some(&s), false, false).unwrap();
    assert_eq!(unknown, ["embedded.metadata.x", "list[0].metadata.y"]);
    assert_eq!(obj["embedded"]["metadata"], json!({"name": "n"}));
    assert_eq!(obj["metadata"], json!({"unknown": 1}));

    let mut wrong = json!({"embedded": {"metadata": {"name": "instance", "namespace": 42}}});
    assert_eq!(
        coerce(&mut wrong, Some(&s), false, false).unwrap_err(),
        "embedded.metadata: Invalid value: {\"name\":\"instance\",\"namespace\":42}: json: cannot unmarshal number into Go struct field ObjectMeta.namespace of type string"
    );
    let mut kind = json!({"list": [{"kind": 1}]});
    assert_eq!(
        coerce(&mut kind, Some(&s), false, false)
            .unwrap_err()
            .to_string(),
        "list[0].kind: Invalid value: 1: must be a string"
    );
    assert_eq!(coerce(&mut kind, Some(&s), false, true), Ok(vec![]));
    assert_eq!(kind, json!({"list": [{}]}));
}

#[test]
fn embedded_resources_are_validated_like_the_server_does() {
    let s = embedded_schema();
    let obj = json!({
        "embedded": {"apiVersion": "a/b/c", "kind": "%", "metadata": {"name": "..", "namespace": "Ns"}},
        "list": [{"apiVersion": "", "kind": 5, "metadata": {"labels": {"a": 1}}}]
    });
    assert_eq!(
        texts(validate(&obj, &s, false)),
        [
            "embedded.apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c",
            "embedded.kind: Invalid value: \"%\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
            "embedded.metadata.name: Invalid value: \"..\": may not be '..'",
            "embedded.metadata.namespace: Invalid value: \"Ns\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
            "list[0].apiVersion: Invalid value: \"\": must not be empty",
            "list[0].kind: Invalid value: 5: must be a string",
            "list[0].metadata: Invalid value: {\"labels\":{\"a\":1}}: json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string",
        ]
    );
    assert!(validate(
        &json!({"embedded": {"apiVersion": "v1", "kind": "Pod"}}),
        &s,
        false
    )
    .is_empty());
}
