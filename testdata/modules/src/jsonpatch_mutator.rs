//! k8s-wasi mutating module (export `validate`) answering the official
//! patch type: an RFC 6902 `JSONPatch` (base64) that adds the label
//! `kadmit.dev/checked: "true"`, creating `metadata` or `metadata.labels`
//! when they are missing. Every answer carries one warning.

#[path = "common/admission.rs"]
mod admission;
#[path = "common/base64.rs"]
mod base64;
#[path = "common/json.rs"]
mod json;
#[path = "common/k8s_wasi.rs"]
mod k8s_wasi;

use json::Value;

const LABEL: &str = "kadmit.dev/checked";

#[no_mangle]
pub extern "C" fn validate() {
    k8s_wasi::serve(admit);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    k8s_wasi::native_main("validate", admit);
}

fn admit(review: &Value, _settings: Option<&Value>) -> Result<Value, String> {
    let request = admission::request_of(review)?;
    let uid = admission::uid(request);
    let object = match admission::object(request) {
        Some(o) => o,
        None => return Ok(admission::review(review, admission::allow(&uid))),
    };
    let mut response = match add_label_operation(object) {
        Some(op) => admission::json_patch(&uid, &Value::Array(vec![op])),
        None => admission::allow(&uid),
    };
    let warning = match response.get("patch") {
        Some(_) => format!("jsonpatch-mutator added the label {}=true", LABEL),
        None => format!("jsonpatch-mutator: the label {}=true is already set", LABEL),
    };
    response.set("warnings", Value::Array(vec![Value::String(warning)]));
    Ok(admission::review(review, response))
}

/// The one `add` operation that sets the label, or `None` if it is set.
fn add_label_operation(object: &Value) -> Option<Value> {
    let label = || Value::object(vec![(LABEL, Value::str("true"))]);
    let metadata = object.get("metadata").filter(|m| m.is_object());
    let labels = metadata.and_then(|m| m.get("labels")).filter(|l| l.is_object());
    let (path, value) = match (metadata, labels) {
        (None, _) => ("/metadata".to_string(), Value::object(vec![("labels", label())])),
        (Some(_), None) => ("/metadata/labels".to_string(), label()),
        (Some(_), Some(labels)) => {
            if labels.get(LABEL).and_then(Value::as_str) == Some("true") {
                return None;
            }
            (format!("/metadata/labels/{}", pointer_token(LABEL)), Value::str("true"))
        }
    };
    Some(Value::object(vec![("op", Value::str("add")), ("path", Value::String(path)), ("value", value)]))
}

/// RFC 6901 escaping of one JSON Pointer reference token.
fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
