//! PersistentVolumeClaim (`ValidatePersistentVolumeClaimSpec`) and storage.k8s.io/v1
//! StorageClass (`ValidateStorageClass`).

use super::labels::validate_selector;
use super::util::{
    dns1123_subdomain, get, list, not_supported, obj, qualified_name, str_of, Errors,
};
use super::Minor;
use kadmit_schema::field_error::FieldError;
use kadmit_schema::quantity::Quantity;
use serde_json::{json, Value};

const ACCESS_MODES: &[&str] = &[
    "ReadOnlyMany",
    "ReadWriteMany",
    "ReadWriteOnce",
    "ReadWriteOncePod",
];

pub fn pvc(o: &Value, _minor: Minor) -> Errors {
    let empty = json!({});
    let spec = get(o, "spec").unwrap_or(&empty);
    let mut errs = Errors::new();
    let modes = list(spec, "accessModes");
    if modes.is_empty() {
        errs.push(FieldError::required(
            "spec.accessModes",
            "at least 1 access mode is required",
        ));
    }
    if let Some(sel) = get(spec, "selector") {
        validate_selector(Some(sel), "spec.selector", &mut errs);
    }
    for m in modes {
        if !ACCESS_MODES.contains(&m.as_str().unwrap_or("")) {
            errs.push(not_supported("spec.accessModes", m.clone(), ACCESS_MODES));
        }
    }
    let mut distinct: Vec<&str> = modes.iter().filter_map(Value::as_str).collect();
    distinct.sort();
    distinct.dedup();
    if distinct.contains(&"ReadWriteOncePod") && distinct.len() > 1 {
        errs.push(FieldError::forbidden(
            "spec.accessModes",
            "may not use ReadWriteOncePod with other access modes",
        ));
    }
    // Upstream keys the storage request on `resources`, not `resources.requests`.
    let at = "spec.resources[storage]";
    let storage = get(spec, "resources")
        .and_then(|r| obj(r, "requests"))
        .and_then(|r| r.get("storage"))
        .and_then(Value::as_str);
    match storage.map(Quantity::parse) {
        None => errs.push(FieldError::required(at, "")),
        Some(Ok(q)) if q.sign() <= 0 => errs.push(FieldError::invalid(
            at,
            json!(q.canonical()),
            "must be greater than zero",
        )),
        _ => {}
    }
    if let Some(class) = get(spec, "storageClassName").and_then(Value::as_str) {
        if !class.is_empty() {
            dns1123_subdomain(class, "spec.storageClassName", &mut errs);
        }
    }
    if let Some(mode) = get(spec, "volumeMode") {
        let m = mode.as_str().unwrap_or("");
        if m != "Block" && m != "Filesystem" {
            errs.push(not_supported(
                "spec.volumeMode",
                mode.clone(),
                &["Block", "Filesystem"],
            ));
        }
    }
    errs
}

pub fn storage_class(o: &Value, _minor: Minor) -> Errors {
    let mut errs = Errors::new();
    let provisioner = str_of(o, "provisioner");
    if provisioner.is_empty() {
        errs.push(FieldError::required("provisioner", ""));
    } else {
        qualified_name(&provisioner.to_lowercase(), "provisioner", &mut errs);
    }
    if let Some(p) = get(o, "reclaimPolicy") {
        let s = p.as_str().unwrap_or("");
        if s != "Delete" && s != "Retain" {
            errs.push(not_supported(
                "reclaimPolicy",
                p.clone(),
                &["Delete", "Retain"],
            ));
        }
    }
    match get(o, "volumeBindingMode") {
        None => errs.push(FieldError::required("volumeBindingMode", "")),
        Some(m) => {
            let s = m.as_str().unwrap_or("");
            if s != "Immediate" && s != "WaitForFirstConsumer" {
                errs.push(not_supported(
                    "volumeBindingMode",
                    m.clone(),
                    &["Immediate", "WaitForFirstConsumer"],
                ));
            }
        }
    }
    errs
}
