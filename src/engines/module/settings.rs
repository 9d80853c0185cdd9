//! Settings checked once, at load, where the protocol has a way to: a Kubewarden policy is
//! run with argv `policy.wasm validate-settings` and the settings on stdin, and answers
//! `{"valid": bool, "message": …}` (as `kwctl run` does before evaluating). k8s-wasi has
//! no such call; its modules see their settings with every request.

use super::limits::Limits;
use super::program::Runner;
use super::spec::Protocol;
use serde_json::{json, Value};

pub fn check(
    runner: &Runner,
    protocol: Protocol,
    settings: Option<&Value>,
    limits: Limits,
) -> Result<(), String> {
    if protocol != Protocol::KubewardenWasi {
        return Ok(());
    }
    let settings = settings.cloned().unwrap_or_else(|| json!({}));
    let stdin = serde_json::to_vec(&settings).expect("a JSON value serializes");
    let output = runner
        .call(protocol, "validate-settings", stdin, limits)
        .map_err(|failure| format!("cannot validate the settings: validate-settings {failure}"))?;
    let answer: Value = serde_json::from_slice(&output.stdout).map_err(|e| {
        format!(
            "cannot validate the settings: validate-settings did not answer JSON ({e}): {}",
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
            "cannot validate the settings: validate-settings answered without a boolean \"valid\": {}",
            super::excerpt(&output.stdout)
        )),
    }
}
