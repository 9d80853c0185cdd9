//! `ValidatePersistentVolumeUpdate` (kube-apiserver 1.30–1.35): the volume source is
//! immutable (but a CSI volume may gain a `controllerExpandSecretRef`), as are
//! `volumeMode` and a node affinity once set.
//!
//! The server appends a `cmp.Diff` of the two Go volume sources, and prints a node
//! affinity as `%#v` of a struct of pointers (addresses that differ per run); kadmit
//! appends its change list and prints `core.VolumeNodeAffinity{…}`. The server's field
//! paths are kept as they are, `volumeMode` and `nodeAffinity` without `spec.`.

use super::rules::at;
use super::semantic;
use kadmit_schema::field_error::{BadValue, ErrorType, FieldError};
use serde_json::{Map, Value};

/// The spec fields outside the volume source (`core.PersistentVolumeSpec` without the
/// inlined `PersistentVolumeSource`).
const NOT_SOURCE: [&str; 9] = [
    "capacity",
    "accessModes",
    "claimRef",
    "persistentVolumeReclaimPolicy",
    "storageClassName",
    "mountOptions",
    "volumeMode",
    "nodeAffinity",
    "volumeAttributesClassName",
];

fn source(spec: Option<&Value>) -> Value {
    let map: Map<String, Value> = spec
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter(|(k, _)| !NOT_SOURCE.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    Value::Object(map)
}

pub fn pv(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut after = source(at(new, "/spec"));
    let before = source(at(old, "/spec"));
    // A CSI volume without a controller expand secret may be given one.
    let gains_secret = at(old, "/spec/csi").is_some()
        && at(old, "/spec/csi/controllerExpandSecretRef").is_none()
        && at(new, "/spec/csi/controllerExpandSecretRef").is_some();
    if gains_secret {
        if let Some(csi) = after.get_mut("csi").and_then(Value::as_object_mut) {
            csi.shift_remove("controllerExpandSecretRef");
        }
    }
    if !semantic::equal(Some(&after), Some(&before)) {
        errs.push(FieldError {
            kind: ErrorType::Forbidden,
            field: "spec.persistentvolumesource".to_owned(),
            value: BadValue::Omit,
            detail: format!(
                "spec.persistentvolumesource is immutable after creation\n{}",
                semantic::changes("spec", Some(&before), Some(&after))
            ),
        });
    }
    let mode = at(new, "/spec/volumeMode");
    if mode != at(old, "/spec/volumeMode") {
        errs.push(FieldError::invalid(
            "volumeMode",
            mode.cloned().unwrap_or(Value::Null),
            "field is immutable",
        ));
    }
    let affinity = at(new, "/spec/nodeAffinity");
    let old_affinity = at(old, "/spec/nodeAffinity");
    if old_affinity.is_some() && !semantic::equal(affinity, old_affinity) {
        let shown = if affinity.is_some() {
            "core.VolumeNodeAffinity{…}"
        } else {
            "null"
        };
        errs.push(FieldError {
            kind: ErrorType::Invalid,
            field: "nodeAffinity".to_owned(),
            value: BadValue::Omit,
            detail: format!("{shown}: field is immutable"),
        });
    }
    errs
}
