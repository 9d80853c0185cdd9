//! Reading what a k8s-wasi module answered: the `{"response", "error"}` envelope, then the
//! AdmissionReview checked as the API server checks a webhook's (`VerifyAdmissionResponse`),
//! with the patch types the k8s-wasi host accepts (`Full`) and the API server's (`JSONPatch`).

use super::review::{ADMISSION_API_VERSION, ADMISSION_REVIEW};
use base64::Engine as _;
use kadmit_jsonpatch::rfc6902 as jsonpatch;
use serde_json::Value;

/// What a module decided about one object.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub decision: Decision,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Allowed; with the object as the module wants it when it changed it.
    Allowed(Option<Value>),
    /// Denied, with the module's explanation.
    Denied(String),
}

/// The `response` of a k8s-wasi envelope; a non-empty `error` is the module's failure.
pub fn read_envelope(stdout: &[u8]) -> Result<Value, String> {
    let envelope: Value = serde_json::from_slice(stdout)
        .map_err(|e| format!("the output is not JSON ({e}): {}", super::excerpt(stdout)))?;
    let Value::Object(mut fields) = envelope else {
        return Err(format!(
            "the output is not a {{\"response\", \"error\"}} object: {}",
            super::excerpt(stdout)
        ));
    };
    match fields.get("error") {
        None | Some(Value::Null) => {}
        Some(Value::String(e)) if e.is_empty() => {}
        Some(Value::String(e)) => return Err(format!("envelope error: '{e}'")),
        Some(other) => return Err(format!("envelope error is not a string: {other}")),
    }
    match fields.remove("response") {
        None | Some(Value::Null) => Err("the output has neither a response nor an error".into()),
        Some(response) => Ok(response),
    }
}

/// Checks a module's AdmissionReview against the request and reads its decision. `object`
/// is what the module was sent; a patch is applied to it, and may not change its identity.
pub fn admission_verdict(
    review: &Value,
    uid: &str,
    mutating: bool,
    object: Option<&Value>,
) -> Result<Verdict, String> {
    check_type(review, ADMISSION_API_VERSION, ADMISSION_REVIEW)?;
    let response = match review.get("response") {
        Some(r @ Value::Object(_)) => r,
        _ => return Err("webhook response was absent".into()),
    };
    let got_uid = response.get("uid").and_then(Value::as_str).unwrap_or("");
    if got_uid != uid {
        return Err(format!("expected response.uid={uid:?}, got {got_uid:?}"));
    }
    let warnings = warnings(response.get("warnings"), "response.warnings")?;
    let allowed = match response.get("allowed") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(format!(
                "response.allowed must be true or false, not {other}"
            ))
        }
    };
    let patch = response.get("patch").filter(|v| !v.is_null());
    let patch_type = response.get("patchType").filter(|v| !v.is_null());
    if !mutating && (patch.is_some() || patch_type.is_some()) {
        return Err(
            "validating webhook may not return response.patch or response.patchType (set spec.mutating: true for a mutating module)"
                .into(),
        );
    }
    if !allowed {
        return Ok(Verdict {
            decision: Decision::Denied(denial_message(response.get("status"))),
            warnings,
        });
    }
    let patched = match (patch, patch_type) {
        (None, None) => None,
        (Some(_), None) => {
            return Err("webhook returned response.patch but not response.patchType".into())
        }
        (None, Some(_)) => {
            return Err("webhook returned response.patchType but not response.patch".into())
        }
        (Some(patch), Some(patch_type)) => apply_patch(patch, patch_type, object)?,
    };
    Ok(Verdict {
        decision: Decision::Allowed(patched),
        warnings,
    })
}

/// `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got …`.
pub fn check_type(review: &Value, api_version: &str, kind: &str) -> Result<(), String> {
    let got_api_version = review
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let got_kind = review.get("kind").and_then(Value::as_str).unwrap_or("");
    if got_api_version == api_version && got_kind == kind {
        return Ok(());
    }
    Err(format!(
        "expected webhook response of {api_version}, Kind={kind}, got {got_api_version}, Kind={got_kind}"
    ))
}

/// `status.message`, else `status.reason`, else the k8s-wasi host's words.
pub fn denial_message(status: Option<&Value>) -> String {
    let text = |name: &str| {
        status
            .and_then(|s| s.get(name))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    text("message")
        .or_else(|| text("reason"))
        .unwrap_or("without explanation")
        .to_owned()
}

pub fn warnings(value: Option<&Value>, field: &str) -> Result<Vec<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|w| {
                w.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("{field} must be a list of strings, not {w}"))
            })
            .collect(),
        Some(other) => Err(format!("{field} must be a list of strings, not {other}")),
    }
}

fn apply_patch(
    patch: &Value,
    patch_type: &Value,
    object: Option<&Value>,
) -> Result<Option<Value>, String> {
    let Value::String(encoded) = patch else {
        return Err("response.patch must be a base64 string".into());
    };
    if encoded.is_empty() {
        return Ok(None);
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|e| format!("response.patch is not base64: {e}"))?;
    let decoded: Value = serde_json::from_slice(&bytes)
        .map_err(|e| format!("response.patch does not decode to JSON: {e}"))?;
    let Some(object) = object else {
        return Err("a module may not patch a DELETE request (there is no object)".into());
    };
    let patched = match patch_type.as_str() {
        Some("Full") => decoded,
        Some("JSONPatch") => jsonpatch::apply(object, &decoded)
            .map_err(|e| format!("the JSONPatch does not apply: {e}"))?,
        _ => {
            return Err(format!(
                "patch type not supported: {patch_type} (kadmit applies \"Full\" and \"JSONPatch\")"
            ))
        }
    };
    check_replacement(object, &patched)?;
    Ok((patched != *object).then_some(patched))
}

/// A mutated object must be an object of the same kind, name and namespace.
pub fn check_replacement(before: &Value, after: &Value) -> Result<(), String> {
    if !after.is_object() {
        return Err(format!(
            "the mutated object must be a mapping, not {}",
            crate::core::resource::type_name(after)
        ));
    }
    for pointer in [
        "/apiVersion",
        "/kind",
        "/metadata/name",
        "/metadata/namespace",
    ] {
        let old = before.pointer(pointer).unwrap_or(&Value::Null);
        let new = after.pointer(pointer).unwrap_or(&Value::Null);
        if old != new {
            let field = pointer[1..].replace('/', ".");
            return Err(format!(
                "a module may not change {field} (from {old} to {new})"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const UID: &str = "695570da-9d1d-476a-a58a-15e051768042";

    fn object() -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "my-config", "namespace": "default"}, "data": {"not-allowed-value": "bar"}})
    }

    fn review(response: Value) -> Value {
        json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response})
    }

    fn encode(value: &Value) -> String {
        base64::engine::general_purpose::STANDARD.encode(serde_json::to_vec(value).unwrap())
    }

    #[test]
    fn the_specification_examples() {
        let denied = review(
            json!({"uid": UID, "allowed": false, "status": {"apiVersion": "v1", "kind": "Status", "message": "value not-allowed-value not allowed in configmap"}}),
        );
        assert_eq!(
            admission_verdict(&denied, UID, false, Some(&object()))
                .unwrap()
                .decision,
            Decision::Denied("value not-allowed-value not allowed in configmap".into())
        );
        // The spec's mutating example, byte for byte.
        let patched = review(
            json!({"uid": UID, "allowed": true, "patchType": "Full", "patch": "eyJhcGlWZXJzaW9uIjoidjEiLCJraW5kIjoiQ29uZmlnTWFwIiwiZGF0YSI6eyJtYWdpYy12YWx1ZSI6ImZvb2JhciIsIm5vdC1hbGxvd2VkLXZhbHVlIjoiYmFyIn0sIm1ldGFkYXRhIjp7Im5hbWUiOiJteS1jb25maWciLCJuYW1lc3BhY2UiOiJkZWZhdWx0In19Cg=="}),
        );
        let verdict = admission_verdict(&patched, UID, true, Some(&object())).unwrap();
        let Decision::Allowed(Some(new)) = verdict.decision else {
            panic!("expected a patched object: {verdict:?}")
        };
        assert_eq!(new["data"]["magic-value"], "foobar");
    }

    #[test]
    fn the_envelope() {
        assert_eq!(
            read_envelope(br#"{"response": {"a": 1}, "error": null}"#),
            Ok(json!({"a": 1}))
        );
        assert_eq!(
            read_envelope(br#"{"response": {"a": 1}, "error": ""}"#),
            Ok(json!({"a": 1}))
        );
        assert_eq!(
            read_envelope(br#"{"response": null, "error": "bad settings"}"#),
            Err("envelope error: 'bad settings'".into())
        );
        assert!(read_envelope(b"hello")
            .unwrap_err()
            .starts_with("the output is not JSON"));
        assert!(read_envelope(b"[1]")
            .unwrap_err()
            .contains("not a {\"response\", \"error\"} object"));
        assert!(read_envelope(b"{}")
            .unwrap_err()
            .contains("neither a response nor an error"));
    }

    #[test]
    fn responses_the_api_server_would_refuse() {
        let cases = [
            (json!({"apiVersion": "v1", "kind": "AdmissionReview", "response": {"uid": UID, "allowed": true}}), false,
             "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got v1, Kind=AdmissionReview"),
            (json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}), false, "webhook response was absent"),
            (review(json!({"uid": "other", "allowed": true})), false,
             "expected response.uid=\"695570da-9d1d-476a-a58a-15e051768042\", got \"other\""),
            (review(json!({"uid": UID, "allowed": true, "patchType": "Full", "patch": encode(&object())})), false,
             "validating webhook may not return response.patch"),
            (review(json!({"uid": UID, "allowed": true, "patch": encode(&object())})), true,
             "webhook returned response.patch but not response.patchType"),
            (review(json!({"uid": UID, "allowed": true, "patchType": "Full"})), true,
             "webhook returned response.patchType but not response.patch"),
            (review(json!({"uid": UID, "allowed": true, "patchType": "Strategic", "patch": encode(&json!({}))})), true,
             "patch type not supported: \"Strategic\""),
            (review(json!({"uid": UID, "allowed": true, "patchType": "Full", "patch": "!!"})), true,
             "response.patch is not base64"),
            (review(json!({"uid": UID, "allowed": "yes"})), false, "response.allowed must be true or false"),
            (review(json!({"uid": UID, "allowed": true, "warnings": [1]})), false, "response.warnings must be a list of strings"),
        ];
        for (response, mutating, error) in cases {
            let got = admission_verdict(&response, UID, mutating, Some(&object())).unwrap_err();
            assert!(got.contains(error), "{got:?} should contain {error:?}");
        }
    }

    #[test]
    fn a_patch_may_not_change_what_the_object_is() {
        let mut renamed = object();
        renamed["metadata"]["name"] = json!("other");
        let response = review(
            json!({"uid": UID, "allowed": true, "patchType": "Full", "patch": encode(&renamed)}),
        );
        assert_eq!(
            admission_verdict(&response, UID, true, Some(&object())).unwrap_err(),
            "a module may not change metadata.name (from \"my-config\" to \"other\")"
        );
        let ops = json!([{"op": "replace", "path": "/kind", "value": "Secret"}]);
        let response = review(
            json!({"uid": UID, "allowed": true, "patchType": "JSONPatch", "patch": encode(&ops)}),
        );
        assert!(admission_verdict(&response, UID, true, Some(&object()))
            .unwrap_err()
            .contains("may not change kind"));
    }

    #[test]
    fn json_patches_apply_and_unchanged_objects_are_no_change() {
        let ops = json!([{"op": "add", "path": "/data/magic-value", "value": "foobar"}]);
        let response = review(
            json!({"uid": UID, "allowed": true, "patchType": "JSONPatch", "patch": encode(&ops), "warnings": ["careful"]}),
        );
        let verdict = admission_verdict(&response, UID, true, Some(&object())).unwrap();
        let Decision::Allowed(Some(new)) = verdict.decision else {
            panic!("{verdict:?}")
        };
        assert_eq!(new["data"]["magic-value"], "foobar");
        assert_eq!(verdict.warnings, vec!["careful"]);
        let same = review(
            json!({"uid": UID, "allowed": true, "patchType": "Full", "patch": encode(&object())}),
        );
        assert_eq!(
            admission_verdict(&same, UID, true, Some(&object()))
                .unwrap()
                .decision,
            Decision::Allowed(None)
        );
    }

    #[test]
    fn denials_explain_themselves_as_well_as_they_can() {
        assert_eq!(
            denial_message(Some(&json!({"reason": "Forbidden"}))),
            "Forbidden"
        );
        assert_eq!(denial_message(None), "without explanation");
        let missing_allowed = review(json!({"uid": UID}));
        assert_eq!(
            admission_verdict(&missing_allowed, UID, false, Some(&object()))
                .unwrap()
                .decision,
            Decision::Denied("without explanation".into())
        );
    }
}
