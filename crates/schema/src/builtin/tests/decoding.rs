//! Strict decoding: the Go decoder's texts for the mistakes people make.

use super::super::{strict_decode, strict_decode_with_duplicates, StrictResult};
use super::kind;
use crate::admission::FieldValidation::{self, Ignore, Strict, Warn};
use serde_json::{json, Value};

const QUANTITY_FORMAT: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

fn deployment() -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "strategy": {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": "25%"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{
                "name": "web", "image": "nginx",
                "ports": [{"containerPort": 80}],
                "resources": {"limits": {"cpu": "1"}}
            }]}}
        }
    })
}

/// `deployment()` with `value` set at `pointer` (created if missing).
fn with(pointer: &str, value: Value) -> Value {
    let mut object = deployment();
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    object.pointer_mut(parent).unwrap()[key] = value;
    object
}

fn decode(object: &Value, mode: FieldValidation) -> StrictResult {
    strict_decode(&kind(35, "apps/v1", "Deployment"), object, mode)
}

/// The detail after `Deployment in version "v1" cannot be handled as a Deployment: `.
fn refusal(object: &Value) -> Option<String> {
    let message = decode(object, Strict).message?;
    let prefix = r#"Deployment in version "v1" cannot be handled as a Deployment: "#;
    Some(
        message
            .strip_prefix(prefix)
            .unwrap_or_else(|| panic!("{message}"))
            .to_owned(),
    )
}

#[test]
fn tricky_values_decode_or_fail_with_gos_texts() {
    // `C` stands for the first container.
    let cases: Vec<(&str, Value, Option<&str>)> = vec![
        // Numbers and numbers as strings.
        ("/spec/replicas", json!("3"), Some("json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32")),
        ("/spec/replicas", json!(1.5), Some("json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32")),
        ("/spec/replicas", json!(3_000_000_000_i64), Some("json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32")),
        ("/spec/replicas", json!(-1e21), Some("json: cannot unmarshal number -1e+21 into Go struct field DeploymentSpec.spec.replicas of type int32")),
        ("/spec/replicas", json!(3.0), None),
        ("/spec/replicas", Value::Null, None),
        ("C/ports/0/containerPort", json!("80"), Some("json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32")),
        ("C/ports/0/protocol", json!(6), Some("json: cannot unmarshal number into Go struct field ContainerPort.spec.template.spec.containers.ports.protocol of type string")),
        // Booleans as strings, strings as booleans.
        ("/spec/paused", json!("true"), Some("json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool")),
        ("C/image", json!(true), Some("json: cannot unmarshal bool into Go struct field Container.spec.template.spec.containers.image of type string")),
        ("/metadata/labels/tier", json!(true), Some("json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string")),
        ("/metadata/labels/version", json!(2), Some("json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string")),
        ("/metadata/labels/none", Value::Null, None),
        // Wrong containers.
        ("/spec/template/spec/containers", json!({}), Some("json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container")),
        ("C/command", json!("date"), Some("json: cannot unmarshal string into Go struct field Container.spec.template.spec.containers.command of type []string")),
        ("/spec", json!("web"), Some("json: cannot unmarshal string into Go struct field Deployment.spec of type v1.DeploymentSpec")),
        ("/spec/selector/matchLabels", json!(["app"]), Some("json: cannot unmarshal array into Go struct field LabelSelector.spec.selector.matchLabels of type map[string]string")),
        // int-or-string: its own UnmarshalJSON decodes non-strings into an int32.
        ("/spec/strategy/rollingUpdate/maxSurge", json!("25%"), None),
        ("/spec/strategy/rollingUpdate/maxSurge", json!(2), None),
        ("/spec/strategy/rollingUpdate/maxSurge", Value::Null, None),
        ("/spec/strategy/rollingUpdate/maxSurge", json!(true), Some("json: cannot unmarshal bool into Go value of type int32")),
        ("/spec/strategy/rollingUpdate/maxSurge", json!(1.5), Some("json: cannot unmarshal number 1.5 into Go value of type int32")),
        ("/spec/strategy/rollingUpdate/maxSurge", json!({"percent": 25}), Some("json: cannot unmarshal object into Go value of type int32")),
        // Quantities: a number or a string ParseQuantity accepts.
        ("C/resources/limits/cpu", json!(0.5), None),
        ("C/resources/limits/cpu", json!(2), None),
        ("C/resources/limits/memory", json!(" 1Gi "), None),
        ("C/resources/limits/memory", json!("1e3"), None),
        ("C/resources/limits/memory", Value::Null, None),
        ("C/resources/limits/cpu", json!("abc"), Some(QUANTITY_FORMAT)),
        ("C/resources/limits/cpu", json!(""), Some(QUANTITY_FORMAT)),
        ("C/resources/limits/cpu", json!("1 core"), Some(QUANTITY_FORMAT)),
        ("C/resources/limits/cpu", json!(true), Some(QUANTITY_FORMAT)),
        ("C/resources/limits/memory", json!("1ki"), Some("unable to parse quantity's suffix")),
        ("C/resources/limits/memory", json!("1e"), Some("unable to parse quantity's suffix")),
        // Time: RFC 3339 or null.
        ("/metadata/creationTimestamp", Value::Null, None),
        ("/metadata/creationTimestamp", json!("2024-05-01T10:00:00Z"), None),
        ("/metadata/creationTimestamp", json!("yesterday"), Some(r#"parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006""#)),
        ("/metadata/creationTimestamp", json!(1714557600), Some("json: cannot unmarshal number into Go value of type string")),
        // Raw fields take anything.
        ("/metadata/managedFields", json!([{"manager": "m", "fieldsV1": {"f:spec": {}}}]), None),
    ];
    let mut failures = Vec::new();
    for (pointer, value, expected) in &cases {
        let pointer = pointer.replace("C/", "/spec/template/spec/containers/0/");
        let got = refusal(&with(&pointer, value.clone()));
        if got.as_deref() != *expected {
            failures.push(format!(
                "{pointer} = {value}: got {got:?}, want {expected:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn unknown_fields_are_all_reported_in_decode_order_with_the_envelope() {
    let mut object = deployment();
    object["spec"]["template"]["spec"]["containers"][0]["portz"] = json!([]);
    object["spec"]["foo"] = json!(null);
    object["metadata"]["labelz"] = json!({});
    object["spec"]["template"]["spec"]["restartpolicy"] = json!("Always");
    let decoded = decode(&object, Strict);
    let message = concat!(
        r#"Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: "#,
        r#"unknown field "metadata.labelz", unknown field "spec.foo", "#,
        r#"unknown field "spec.template.spec.containers[0].portz", "#,
        r#"unknown field "spec.template.spec.restartpolicy""#
    );
    assert_eq!(decoded.message.as_deref(), Some(message));
    assert_eq!(decoded.errors.len(), 4);
    assert_eq!(
        decoded.kubectl_message("deploy.yaml").unwrap(),
        format!(r#"Error from server (BadRequest): error when creating "deploy.yaml": {message}"#)
    );
    assert_eq!(
        decoded.refused().unwrap().status(),
        json!({"metadata": {}, "status": "Failure", "message": message,
               "reason": "BadRequest", "code": 400})
    );
    let hints: Vec<String> = decoded.unknown.iter().map(ToString::to_string).collect();
    assert_eq!(
        hints[3],
        r#"unknown field "spec.template.spec.restartpolicy" (did you mean "restartPolicy"?)"#
    );
    assert_eq!(
        decoded.drop,
        [
            "/metadata/labelz",
            "/spec/foo",
            "/spec/template/spec/containers/0/portz",
            "/spec/template/spec/restartpolicy"
        ]
    );
}

#[test]
fn warn_and_ignore_drop_unknown_fields_and_only_warn_says_so() {
    let object = with("/spec/template/spec/containers/0/portz", json!(1));
    let warned = decode(&object, Warn);
    assert_eq!(warned.message, None);
    assert!(warned.errors.is_empty());
    assert_eq!(
        warned.warnings,
        [r#"unknown field "spec.template.spec.containers[0].portz""#]
    );
    let ignored = decode(&object, Ignore);
    assert_eq!((ignored.message.clone(), ignored.warnings.len()), (None, 0));
    assert_eq!(ignored.drop, warned.drop);
    let mut kept = object.clone();
    ignored.apply(&mut kept);
    assert_eq!(kept, deployment());
}

#[test]
fn a_type_error_refuses_in_every_mode_and_hides_the_strict_errors() {
    let mut object = with("/spec/replicas", json!("2"));
    object["spec"]["portz"] = json!(1);
    let text = "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32";
    for mode in [Strict, Warn, Ignore] {
        let decoded = decode(&object, mode);
        assert_eq!(
            decoded.message.as_deref(),
            Some(
                format!(r#"Deployment in version "v1" cannot be handled as a Deployment: {text}"#)
                    .as_str()
            ),
            "{mode:?}"
        );
    }
    assert_eq!(
        decode(&object, Strict).errors,
        [text, r#"unknown field "spec.portz""#]
    );
}

#[test]
fn go_reports_the_first_saved_type_error_unless_an_unmarshaler_fails() {
    let mut object = with("/metadata/labels/tier", json!(1));
    object["spec"]["replicas"] = json!("2");
    assert_eq!(
        refusal(&object).unwrap(),
        "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"
    );
    object["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"] =
        json!("lots");
    assert_eq!(refusal(&object).unwrap(), QUANTITY_FORMAT);
    assert_eq!(decode(&object, Strict).errors.len(), 3);
}

#[test]
fn duplicates_from_the_reader_are_strict_errors_in_place() {
    let mut object = deployment();
    object["spec"]["foo"] = json!(1);
    let kind = kind(35, "apps/v1", "Deployment");
    let duplicates = ["spec.replicas".to_owned(), "metadata.name".to_owned()];
    let decoded = strict_decode_with_duplicates(&kind, &object, Strict, &duplicates);
    assert_eq!(
        decoded.message.unwrap(),
        concat!(
            r#"Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: "#,
            r#"duplicate field "metadata.name", unknown field "spec.foo", duplicate field "spec.replicas""#
        )
    );
    let warned = strict_decode_with_duplicates(&kind, &deployment(), Warn, &duplicates);
    assert_eq!(warned.warnings.len(), 2);
    let ignored = strict_decode_with_duplicates(&kind, &deployment(), Ignore, &duplicates);
    assert!(ignored.warnings.is_empty() && ignored.message.is_none());
}

#[test]
fn fields_follow_the_version() {
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"resources": {"limits": {"cpu": "1"}},
                 "containers": [{"name": "c", "image": "i"}]}});
    let new = strict_decode(&kind(35, "v1", "Pod"), &pod, Strict);
    assert_eq!(new.message, None);
    let old = strict_decode(&kind(30, "v1", "Pod"), &pod, Strict);
    assert_eq!(
        old.message.as_deref(),
        Some(
            r#"Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.resources""#
        )
    );
}

#[test]
fn bytes_are_base64_as_gos_decoder_reads_it() {
    let secret = kind(35, "v1", "Secret");
    let decode = |data: Value| {
        strict_decode(
            &secret,
            &json!({"apiVersion": "v1", "kind": "Secret", "data": {"k": data}}),
            Strict,
        )
        .message
        .map(|m| {
            m.trim_start_matches(r#"Secret in version "v1" cannot be handled as a Secret: "#)
                .to_owned()
        })
    };
    assert_eq!(decode(json!("c2VjcmV0")), None);
    assert_eq!(decode(json!("")), None);
    assert_eq!(decode(json!("YQ==\n")), None);
    assert_eq!(
        decode(json!("not base64!")).unwrap(),
        "illegal base64 data at input byte 3"
    );
    assert_eq!(
        decode(json!("YQ=")).unwrap(),
        "illegal base64 data at input byte 3"
    );
    assert_eq!(
        decode(json!("YWJ")).unwrap(),
        "illegal base64 data at input byte 0"
    );
    assert_eq!(
        decode(json!("YQ==YQ==")).unwrap(),
        "illegal base64 data at input byte 4"
    );
    assert_eq!(
        decode(json!(5)).unwrap(),
        "json: cannot unmarshal number into Go struct field Secret.data of type []uint8"
    );
}

#[test]
fn an_unknown_key_with_a_slash_or_tilde_is_dropped_by_its_escaped_pointer() {
    let object = with("/spec/template/spec/containers/0/x~y", json!({"a/b": 1}));
    let ignored = decode(&object, Ignore);
    assert_eq!(ignored.drop, ["/spec/template/spec/containers/0/x~0y"]);
    let mut kept = object.clone();
    ignored.apply(&mut kept);
    assert_eq!(kept, deployment());

    let mut labels = deployment();
    labels["spec"]["selector"]["matchLabelz/x"] = json!("y");
    let ignored = decode(&labels, Ignore);
    assert_eq!(ignored.drop, ["/spec/selector/matchLabelz~1x"]);
}
