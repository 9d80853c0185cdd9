//! Reading mutator specs: fields by path, and the location with Gatekeeper's wrapping of
//! parse errors.

use crate::engines::gatekeeper::path::{self, Path};
use serde_json::Value;

/// Why a mutator with `externalData` is refused: the provider is called by the webhook at
/// admission time, and kadmit runs offline.
pub const EXTERNAL_DATA_UNSUPPORTED: &str = "externalData is not supported offline: its provider is called by the webhook at admission time; kadmit cannot call it and will not guess its answer";

/// The string at `keys` under `value`, `""` when missing or not a string.
pub fn string_at<'a>(value: &'a Value, keys: &[&str]) -> &'a str {
    let mut current = value;
    for key in keys {
        match current.get(key) {
            Some(next) => current = next,
            None => return "",
        }
    }
    current.as_str().unwrap_or("")
}

/// `spec.location` parsed; `Err` wraps the parse error as `wrap(location, error)` says.
pub fn location(spec: &Value, wrap: impl Fn(&str, &str) -> String) -> Result<Path, String> {
    let text = string_at(spec, &["location"]);
    path::parse(text).map_err(|e| wrap(text, &e.to_string()))
}

/// A field of `parameters.assign` that counts as set (Gatekeeper treats `null` as unset).
pub fn assign_field<'a>(spec: &'a Value, field: &str) -> Option<&'a Value> {
    spec.pointer("/parameters/assign")
        .and_then(|a| a.get(field))
        .filter(|v| !v.is_null())
}
