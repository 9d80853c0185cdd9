//! k8s-wasi validating module (export `validate`) that needs settings:
//! `{"requiredLabels": ["team", …]}`. Objects missing any of those labels
//! are rejected, naming the missing labels. Without a `settings` key (or
//! with `null`) it answers an `error`, so a host that drops configured
//! settings, or sends some when none are configured, is caught.

#[path = "common/admission.rs"]
mod admission;
#[path = "common/base64.rs"]
mod base64;
#[path = "common/json.rs"]
mod json;
#[path = "common/k8s_wasi.rs"]
mod k8s_wasi;

use json::Value;

const SETTINGS_SHAPE: &str = r#"{"requiredLabels": ["<label>", ...]}"#;

#[no_mangle]
pub extern "C" fn validate() {
    k8s_wasi::serve(admit);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    k8s_wasi::native_main("validate", admit);
}

fn admit(review: &Value, settings: Option<&Value>) -> Result<Value, String> {
    let settings = settings.ok_or_else(|| format!("settings are required: {}", SETTINGS_SHAPE))?;
    let required = required_labels(settings)?;
    let request = admission::request_of(review)?;
    let uid = admission::uid(request);
    let labels = admission::object(request).map(|o| o.at(&["metadata", "labels"]));
    let missing: Vec<&str> = match labels {
        None => Vec::new(), // no object (DELETE): nothing to check
        Some(labels) => required
            .into_iter()
            .filter(|name| labels.and_then(|l| l.get(name)).is_none())
            .collect(),
    };
    let response = if missing.is_empty() {
        admission::allow(&uid)
    } else {
        admission::reject(&uid, &format!("missing required labels: {}", missing.join(", ")))
    };
    Ok(admission::review(review, response))
}

fn required_labels(settings: &Value) -> Result<Vec<&str>, String> {
    let invalid = || format!("invalid settings: expected {}", SETTINGS_SHAPE);
    let list = settings.get("requiredLabels").and_then(Value::as_array).ok_or_else(invalid)?;
    list.iter().map(|name| name.as_str().ok_or_else(invalid)).collect()
}
