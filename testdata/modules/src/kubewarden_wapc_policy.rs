//! A Kubewarden **waPC** policy, written against the waPC guest ABI directly
//! (no crates: the modules are built with a bare `rustc`). It exports
//! `wapc_init` and `__guest_call`, and answers the operations a Kubewarden
//! host calls:
//!
//! * `protocol_version`: `"v1"`.
//! * `validate_settings`: payload the settings JSON; answers
//!   `{"valid": true}` or `{"valid": false, "message": …}`.
//! * `validate`: payload `{"request": <AdmissionRequest>, "settings": …}`;
//!   answers a ValidationResponse. Every call first logs
//!   `validating <Kind> <name>` through the host (`kubewarden`/`tracing`/`log`),
//!   and fails (a guest error) if the host refuses the log call, as the
//!   Kubewarden SDKs do. Then, in this order:
//!   * `lookupHost: "<name>"`: asks the host `net`/`v1/dns_lookup_host`; a
//!     refusal is a guest error `dns_lookup_host failed: <host error>`;
//!   * `requiredConfigMap: "<name>"`: asks the host `kubernetes`/`get_resource`
//!     for the ConfigMap `<name>` in the request's namespace; when the host
//!     answers an error, the request is rejected with
//!     `configmap <name> is required: <host error>` (code 404);
//!   * Pods and pod templates whose containers use an image tagged `latest`
//!     or untagged are rejected (code 400), as `kubewarden-policy` does;
//!   * `addLabel: {"key", "value"}`: accepted with `mutated_object` carrying
//!     the label and a warning;
//!   * else accepted.
//! * Any other operation: a guest error `unknown operation <name>`.

#[path = "common/json.rs"]
mod json;
#[path = "common/pod_images.rs"]
mod pod_images;

use json::Value;

#[link(wasm_import_module = "wapc")]
extern "C" {
    fn __guest_request(op_ptr: *mut u8, ptr: *mut u8);
    fn __guest_response(ptr: *const u8, len: usize);
    fn __guest_error(ptr: *const u8, len: usize);
    fn __host_call(
        bd_ptr: *const u8,
        bd_len: usize,
        ns_ptr: *const u8,
        ns_len: usize,
        op_ptr: *const u8,
        op_len: usize,
        ptr: *const u8,
        len: usize,
    ) -> usize;
    fn __host_response_len() -> usize;
    fn __host_response(ptr: *mut u8);
    fn __host_error_len() -> usize;
    fn __host_error(ptr: *mut u8);
}

/// waPC hosts call this once per fresh instance, before any `__guest_call`.
#[no_mangle]
pub extern "C" fn wapc_init() {}

/// One operation: read it and its payload from the host, answer with
/// `__guest_response` (1) or `__guest_error` (0).
#[no_mangle]
pub extern "C" fn __guest_call(op_len: i32, payload_len: i32) -> i32 {
    let mut operation = vec![0u8; op_len as usize];
    let mut payload = vec![0u8; payload_len as usize];
    unsafe { __guest_request(operation.as_mut_ptr(), payload.as_mut_ptr()) };
    let operation = String::from_utf8_lossy(&operation).into_owned();
    match handle(&operation, &payload) {
        Ok(answer) => {
            unsafe { __guest_response(answer.as_ptr(), answer.len()) };
            1
        }
        Err(message) => {
            unsafe { __guest_error(message.as_ptr(), message.len()) };
            0
        }
    }
}

/// Calls the host; its response, or its error as text.
fn host_call(namespace: &str, operation: &str, payload: &[u8]) -> Result<Vec<u8>, String> {
    let binding = "kubewarden";
    let ok = unsafe {
        __host_call(
            binding.as_ptr(),
            binding.len(),
            namespace.as_ptr(),
            namespace.len(),
            operation.as_ptr(),
            operation.len(),
            payload.as_ptr(),
            payload.len(),
        )
    };
    if ok == 1 {
        let mut response = vec![0u8; unsafe { __host_response_len() }];
        unsafe { __host_response(response.as_mut_ptr()) };
        Ok(response)
    } else {
        let mut error = vec![0u8; unsafe { __host_error_len() }];
        unsafe { __host_error(error.as_mut_ptr()) };
        Err(String::from_utf8_lossy(&error).into_owned())
    }
}

fn handle(operation: &str, payload: &[u8]) -> Result<Vec<u8>, String> {
    let text = String::from_utf8_lossy(payload);
    let answer = match operation {
        "protocol_version" => Value::str("v1"),
        "validate_settings" => validate_settings(&json::parse(&text)?),
        "validate" => validate(&json::parse(&text)?)?,
        other => return Err(format!("unknown operation {}", other)),
    };
    Ok(answer.to_json().into_bytes())
}

struct Settings {
    add_label: Option<(String, String)>,
    required_config_map: Option<String>,
    lookup_host: Option<String>,
}

fn parse_settings(settings: Option<&Value>) -> Result<Settings, String> {
    let mut parsed = Settings { add_label: None, required_config_map: None, lookup_host: None };
    let pairs = match settings {
        None | Some(Value::Null) => return Ok(parsed),
        Some(Value::Object(pairs)) => pairs,
        Some(_) => return Err("settings must be an object".to_string()),
    };
    for (key, value) in pairs {
        match key.as_str() {
            "addLabel" => {
                let k = value.get("key").and_then(Value::as_str).filter(|k| !k.is_empty());
                let v = value.get("value").and_then(Value::as_str);
                match (k, v) {
                    (Some(k), Some(v)) => parsed.add_label = Some((k.to_string(), v.to_string())),
                    _ => return Err("addLabel needs a non-empty string \"key\" and a string \"value\"".to_string()),
                }
            }
            "requiredConfigMap" => match value.as_str().filter(|n| !n.is_empty()) {
                Some(name) => parsed.required_config_map = Some(name.to_string()),
                None => return Err("requiredConfigMap must be a non-empty string".to_string()),
            },
            "lookupHost" => match value.as_str().filter(|n| !n.is_empty()) {
                Some(host) => parsed.lookup_host = Some(host.to_string()),
                None => return Err("lookupHost must be a non-empty string".to_string()),
            },
            other => return Err(format!("unknown setting {:?}", other)),
        }
    }
    Ok(parsed)
}

fn validate_settings(settings: &Value) -> Value {
    match parse_settings(Some(settings)) {
        Ok(_) => Value::object(vec![("valid", Value::Bool(true))]),
        Err(message) => Value::object(vec![("valid", Value::Bool(false)), ("message", Value::String(message))]),
    }
}

fn validate(input: &Value) -> Result<Value, String> {
    let settings = match parse_settings(input.get("settings")) {
        Ok(s) => s,
        Err(message) => return Ok(rejection(&format!("invalid settings: {}", message), 400)),
    };
    let request = input.get("request").unwrap_or(&Value::Null);
    let kind = request.at(&["kind", "kind"]).and_then(Value::as_str).unwrap_or("");
    let name = request.get("name").and_then(Value::as_str).unwrap_or("");
    let entry = Value::object(vec![
        ("level", Value::str("info")),
        ("message", Value::String(format!("validating {} {}", kind, name))),
    ]);
    host_call("tracing", "log", entry.to_json().as_bytes()).map_err(|e| format!("cannot log: {}", e))?;
    if let Some(host) = &settings.lookup_host {
        host_call("net", "v1/dns_lookup_host", Value::str(host).to_json().as_bytes())
            .map_err(|e| format!("dns_lookup_host failed: {}", e))?;
    }
    if let Some(config_map) = &settings.required_config_map {
        let namespace = request.get("namespace").and_then(Value::as_str).unwrap_or("");
        let query = Value::object(vec![
            ("api_version", Value::str("v1")),
            ("kind", Value::str("ConfigMap")),
            ("name", Value::str(config_map)),
            ("namespace", Value::str(namespace)),
            ("disable_cache", Value::Bool(false)),
        ]);
        if let Err(e) = host_call("kubernetes", "get_resource", query.to_json().as_bytes()) {
            return Ok(rejection(&format!("configmap {} is required: {}", config_map, e), 404));
        }
    }
    let object = match request.get("object").filter(|o| o.is_object()) {
        Some(o) => o,
        None => return Ok(acceptance()),
    };
    let offenders = pod_images::floating_images(object);
    if !offenders.is_empty() {
        return Ok(rejection(&offenders.join("; "), 400));
    }
    Ok(match settings.add_label {
        Some((key, value)) => with_label(object, &key, &value),
        None => acceptance(),
    })
}

fn acceptance() -> Value {
    Value::object(vec![("accepted", Value::Bool(true))])
}

fn rejection(message: &str, code: i64) -> Value {
    Value::object(vec![
        ("accepted", Value::Bool(false)),
        ("message", Value::str(message)),
        ("code", Value::int(code)),
    ])
}

/// Accepts, returning the object with the label set (unless it already is).
fn with_label(object: &Value, key: &str, value: &str) -> Value {
    if object.at(&["metadata", "labels", key]).and_then(Value::as_str) == Some(value) {
        return acceptance();
    }
    let mut mutated = object.clone();
    mutated.child_object("metadata").child_object("labels").set(key, Value::str(value));
    let warning = format!("kubewarden-wapc-policy added the label {}={}", key, value);
    Value::object(vec![
        ("accepted", Value::Bool(true)),
        ("mutated_object", mutated),
        ("warnings", Value::Array(vec![Value::String(warning)])),
    ])
}
