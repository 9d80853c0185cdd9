//! `ValidateVolumes`: names (DNS-1123 label, unique), exactly one source, and the
//! required fields of the common sources. Returns the names of the valid volumes, the
//! set `volumeMounts` are matched against (a volume with an error is left out, as
//! upstream leaves it out of its map).

use super::util::{child, dns1123_label, duplicate, get, index, int_of, list, str_of, Errors};
use kadmit_schema::field_error::FieldError;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// The volume sources in the order `validateVolumeSource` checks them.
const SOURCES: &[&str] = &[
    "hostPath",
    "emptyDir",
    "gitRepo",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "flocker",
    "persistentVolumeClaim",
    "rbd",
    "cinder",
    "cephfs",
    "downwardAPI",
    "fc",
    "azureFile",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "configMap",
    "photonPersistentDisk",
    "portworxVolume",
    "projected",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
    "image",
];

pub fn validate_volumes(spec: &Value, path: &str, errs: &mut Errors) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (i, vol) in list(spec, "volumes").iter().enumerate() {
        let at = index(path, i);
        let name_path = child(&at, "name");
        let mut el = validate_source(vol, &at);
        let name = str_of(vol, "name");
        if name.is_empty() {
            el.push(FieldError::required(&name_path, ""));
        } else {
            dns1123_label(name, &name_path, &mut el);
        }
        if names.contains(name) {
            el.push(duplicate(&name_path, json!(name)));
        }
        if el.is_empty() {
            names.insert(name.to_owned());
        } else {
            errs.extend(el);
        }
    }
    names
}

fn validate_source(vol: &Value, path: &str) -> Errors {
    let mut errs = Errors::new();
    let mut n = 0;
    for src in SOURCES {
        let Some(s) = get(vol, src) else { continue };
        let at = child(path, src);
        if n > 0 {
            errs.push(FieldError::forbidden(
                at,
                "may not specify more than 1 volume type",
            ));
            continue;
        }
        n += 1;
        let required = match *src {
            "hostPath" => Some("path"),
            "secret" => Some("secretName"),
            "configMap" => Some("name"),
            "persistentVolumeClaim" => Some("claimName"),
            "nfs" => Some("server"),
            _ => None,
        };
        if let Some(k) = required {
            if str_of(s, k).is_empty() {
                errs.push(FieldError::required(child(&at, k), ""));
            }
        }
        if matches!(*src, "secret" | "configMap" | "downwardAPI" | "projected") {
            if let Some(mode) = int_of(s, "defaultMode") {
                if !(0..=0o777).contains(&mode) {
                    errs.push(FieldError::invalid(
                        child(&at, "defaultMode"),
                        json!(mode),
                        "must be a number between 0 and 0777 (octal), both inclusive",
                    ));
                }
            }
        }
    }
    if n == 0 {
        errs.push(FieldError::required(path, "must specify a volume type"));
    }
    errs
}
