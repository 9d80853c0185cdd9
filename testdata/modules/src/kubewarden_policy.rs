//! A Kubewarden **WASI** policy (not k8s-wasi): a command module whose
//! `_start` runs `main`. The host passes argv `["policy.wasm", "validate"]`
//! or `["policy.wasm", "validate-settings"]`.
//!
//! * `validate`: stdin `{"request": <AdmissionRequest>, "settings": …}`,
//!   stdout a ValidationResponse `{"accepted", "message", "code",
//!   "mutated_object", "warnings"}`. Pods (and pod templates of workloads)
//!   whose containers use an image tagged `latest`, or untagged, are
//!   rejected with code 400. With settings `{"addLabel": {"key", "value"}}`
//!   an accepted object comes back as `mutated_object` with that label.
//! * `validate-settings`: stdin the settings JSON (Kubewarden's convention;
//!   a `{"settings": …}` envelope is accepted too), stdout
//!   `{"valid": true}` or `{"valid": false, "message": …}`.
//!
//! Unreadable input or unknown arguments: a message on stderr, exit 1 or 2.

#[path = "common/json.rs"]
mod json;
#[path = "common/pod_images.rs"]
mod pod_images;

use json::Value;
use std::io::{Read, Write};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("");
    if args.len() != 2 || !(mode == "validate" || mode == "validate-settings") {
        eprintln!("usage: policy.wasm validate|validate-settings   (JSON on stdin)");
        std::process::exit(2);
    }
    let mut input = String::new();
    let parsed = match std::io::stdin().read_to_string(&mut input) {
        Ok(_) => json::parse(&input),
        Err(e) => Err(format!("cannot read stdin: {}", e)),
    };
    let input = match parsed {
        Ok(v) => v,
        Err(message) => {
            eprintln!("kubewarden-policy: {}", message);
            std::process::exit(1);
        }
    };
    let output = if mode == "validate" { validate(&input) } else { validate_settings(&input) };
    let mut stdout = std::io::stdout();
    let _ = stdout.write_all((output.to_json() + "\n").as_bytes()).and_then(|_| stdout.flush());
}

/// The `addLabel` setting, if any.
struct Settings {
    add_label: Option<(String, String)>,
}

fn parse_settings(settings: Option<&Value>) -> Result<Settings, String> {
    let pairs = match settings {
        None | Some(Value::Null) => return Ok(Settings { add_label: None }),
        Some(Value::Object(pairs)) => pairs,
        Some(_) => return Err("settings must be an object".to_string()),
    };
    let mut add_label = None;
    for (key, value) in pairs {
        if key != "addLabel" {
            return Err(format!("unknown setting {:?}", key));
        }
        let key = value.get("key").and_then(Value::as_str).filter(|k| !k.is_empty());
        let val = value.get("value").and_then(Value::as_str);
        match (key, val) {
            (Some(k), Some(v)) => add_label = Some((k.to_string(), v.to_string())),
            _ => return Err("addLabel needs a non-empty string \"key\" and a string \"value\"".to_string()),
        }
    }
    Ok(Settings { add_label })
}

fn validate_settings(input: &Value) -> Value {
    let settings = match input.get("settings") {
        Some(inner) if input.get("addLabel").is_none() => inner,
        _ => input,
    };
    match parse_settings(Some(settings)) {
        Ok(_) => Value::object(vec![("valid", Value::Bool(true))]),
        Err(message) => Value::object(vec![("valid", Value::Bool(false)), ("message", Value::String(message))]),
    }
}

fn validate(input: &Value) -> Value {
    let settings = match parse_settings(input.get("settings")) {
        Ok(s) => s,
        Err(message) => return rejection(&format!("invalid settings: {}", message)),
    };
    let mut request = input.get("request").unwrap_or(&Value::Null);
    if request.get("kind").and_then(Value::as_str) == Some("AdmissionReview") {
        // Lenient: a whole AdmissionReview instead of its request.
        request = request.get("request").unwrap_or(&Value::Null);
    }
    let object = match request.get("object").filter(|o| o.is_object()) {
        Some(o) => o,
        None => return acceptance(),
    };
    let offenders = pod_images::floating_images(object);
    if !offenders.is_empty() {
        return rejection(&offenders.join("; "));
    }
    match settings.add_label {
        Some((key, value)) => with_label(object, &key, &value),
        None => acceptance(),
    }
}

fn acceptance() -> Value {
    Value::object(vec![("accepted", Value::Bool(true))])
}

fn rejection(message: &str) -> Value {
    Value::object(vec![
        ("accepted", Value::Bool(false)),
        ("message", Value::str(message)),
        ("code", Value::int(400)),
    ])
}

/// Accepts, returning the object with the label set (unless it already is).
fn with_label(object: &Value, key: &str, value: &str) -> Value {
    if object.at(&["metadata", "labels", key]).and_then(Value::as_str) == Some(value) {
        return acceptance();
    }
    let mut mutated = object.clone();
    mutated.child_object("metadata").child_object("labels").set(key, Value::str(value));
    let warning = format!("kubewarden-policy added the label {}={}", key, value);
    Value::object(vec![
        ("accepted", Value::Bool(true)),
        ("mutated_object", mutated),
        ("warnings", Value::Array(vec![Value::String(warning)])),
    ])
}
