//! k8s-wasi mutating module (export `validate`), the specification's
//! example: adds `data.magic-value: foobar` to a ConfigMap and answers the
//! whole new object as a `Full` patch. A ConfigMap that already has the
//! key (with any value), any other kind, and a request without an object
//! (DELETE) are allowed unchanged, with no patch.

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
    let object = match admission::object(request) {
        Some(o) if admission::kind(request) == "ConfigMap" => o,
        _ => return Ok(admission::review(review, admission::allow(&uid))),
    };
    if object.at(&["data", "magic-value"]).is_some() {
        return Ok(admission::review(review, admission::allow(&uid)));
    }
    let mut mutated = object.clone();
    mutated.child_object("data").set("magic-value", Value::str("foobar"));
    Ok(admission::review(review, admission::full_patch(&uid, &mutated)))
}
