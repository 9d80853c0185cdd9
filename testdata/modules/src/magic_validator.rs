//! k8s-wasi validating module (export `validate`), the specification's
//! example: rejects a ConfigMap whose `data` holds the key
//! `not-allowed-value`; allows everything else.

#[path = "common/admission.rs"]
mod admission;
#[path = "common/base64.rs"]
mod base64;
#[path = "common/json.rs"]
mod json;
#[path = "common/k8s_wasi.rs"]
mod k8s_wasi;

use json::Value;

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
    let data = admission::object(request).and_then(|o| o.get("data"));
    let forbidden = admission::kind(request) == "ConfigMap"
        && data.and_then(|d| d.get("not-allowed-value")).is_some();
    let response = if forbidden {
        admission::reject(&uid, "value not-allowed-value not allowed in configmap")
    } else {
        admission::allow(&uid)
    };
    Ok(admission::review(review, response))
}
