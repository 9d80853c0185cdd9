//! k8s-wasi authentication module (export `authn`), the specification's
//! example: a TokenReview for the token `magic-token` is authenticated as
//! user `magic-user` (uid `0`, group `magic-group`); any other token is not.

#[path = "common/json.rs"]
mod json;
#[path = "common/k8s_wasi.rs"]
mod k8s_wasi;

use json::Value;

#[no_mangle]
pub extern "C" fn authn() {
    k8s_wasi::serve(authenticate);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    k8s_wasi::native_main("authn", authenticate);
}

fn authenticate(review: &Value, _settings: Option<&Value>) -> Result<Value, String> {
    let token = review.at(&["spec", "token"]).and_then(Value::as_str);
    let status = if token == Some("magic-token") {
        let user = Value::object(vec![
            ("groups", Value::Array(vec![Value::str("magic-group")])),
            ("uid", Value::str("0")),
            ("username", Value::str("magic-user")),
        ]);
        Value::object(vec![("authenticated", Value::Bool(true)), ("user", user)])
    } else {
        Value::object(vec![("authenticated", Value::Bool(false))])
    };
    Ok(Value::object(vec![
        ("apiVersion", Value::str("authentication.k8s.io/v1")),
        ("kind", Value::str("TokenReview")),
        ("status", status),
    ]))
}
