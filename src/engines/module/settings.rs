//! Settings checked once, at load, where the protocol has a way to: a Kubewarden WASI
//! policy is run with argv `policy.wasm validate-settings` and the settings on stdin; a
//! waPC policy is first asked its `protocol_version` (which must be `"v1"`), then called
//! with the operation `validate_settings` and the settings as payload. Both answer
//! `{"valid": bool, "message": …}` (as `kwctl run` checks before evaluating). k8s-wasi
//! has no such call; its modules see their settings with every request.

use super::capabilities::Host;
use super::limits::Limits;
use super::program::Runner;
use super::spec::Protocol;
use serde_json::{json, Value};
use std::sync::Arc;

/// The waPC protocol version kadmit speaks, as Kubewarden's `protocol_version` answers it.
const WAPC_PROTOCOL_VERSION: &str = "v1";

pub fn check(
    runner: &Runner,
    protocol: Protocol,
    settings: Option<&Value>,
    limits: Limits,
) -> Result<(), String> {
    let operation = match protocol {
        Protocol::K8sWasi => return Ok(()),
        Protocol::KubewardenWasi => "validate-settings",
        Protocol::KubewardenWapc => {
            check_protocol_version(runner, limits)?;
            "validate_settings"
        }
    };
    let host = Arc::new(Host::default());
    let settings = settings.cloned().unwrap_or_else(|| json!({}));
    let stdin = serde_json::to_vec(&settings).expect("a JSON value serializes");
    let output = runner
        .call(protocol, operation, stdin, &host, limits)
        .map_err(|failure| format!("cannot validate the settings: {operation} {failure}"))?;
    let answer: Value = serde_json::from_slice(&output.stdout).map_err(|e| {
        format!(
            "cannot validate the settings: {operation} did not answer JSON ({e}): {}",
            super::excerpt(&output.stdout)
        )
    })?;
    match answer.get("valid") {
        Some(Value::Bool(true)) => Ok(()),
        Some(Value::Bool(false)) => Err(format!(
            "spec.settings: Provided settings are not valid: {}",
            answer
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("without explanation")
        )),
        _ => Err(format!(
            "cannot validate the settings: {operation} answered without a boolean \"valid\": {}",
            super::excerpt(&output.stdout)
        )),
    }
}

/// Asks a waPC policy which protocol it speaks: kadmit speaks `"v1"`.
fn check_protocol_version(runner: &Runner, limits: Limits) -> Result<(), String> {
    let host = Arc::new(Host::default());
    let output = runner
        .call(
            Protocol::KubewardenWapc,
            "protocol_version",
            Vec::new(),
            &host,
            limits,
        )
        .map_err(|failure| {
            format!("cannot ask the policy its protocol version: protocol_version {failure}")
        })?;
    match serde_json::from_slice::<Value>(&output.stdout) {
        Ok(Value::String(version)) if version == WAPC_PROTOCOL_VERSION => Ok(()),
        _ => Err(format!(
            "the policy speaks protocol version {}, kadmit speaks {WAPC_PROTOCOL_VERSION:?}",
            super::excerpt(&output.stdout)
        )),
    }
}
