//! k8s-wasi authorization module (export `authz`), after the
//! specification's example: a SubjectAccessReview to `list` `pods` is not
//! allowed; every other request is allowed. Both answers carry a reason.

#[path = "common/json.rs"]
mod json;
#[path = "common/k8s_wasi.rs"]
mod k8s_wasi;

use json::Value;

#[no_mangle]
pub extern "C" fn authz() {
    k8s_wasi::serve(authorize);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    k8s_wasi::native_main("authz", authorize);
}

fn authorize(review: &Value, _settings: Option<&Value>) -> Result<Value, String> {
    let attributes = review.at(&["spec", "resourceAttributes"]);
    let field = |name: &str| attributes.and_then(|a| a.get(name)).and_then(Value::as_str);
    let listing_pods = field("verb") == Some("list") && field("resource") == Some("pods");
    let (allowed, reason) = if listing_pods {
        (false, "magic-authorizer: listing pods is not allowed")
    } else {
        (true, "magic-authorizer: allowed")
    };
    let status = Value::object(vec![("allowed", Value::Bool(allowed)), ("reason", Value::str(reason))]);
    Ok(Value::object(vec![
        ("apiVersion", Value::str("authorization.k8s.io/v1")),
        ("kind", Value::str("SubjectAccessReview")),
        ("status", status),
    ]))
}
