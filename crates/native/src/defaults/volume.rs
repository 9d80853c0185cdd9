//! Per-volume defaults of a pod spec (core/v1 `zz_generated.defaults.go`, the `Volumes` loop)
//! and the volume-source defaults a PersistentVolume shares with it.

use super::container::object_field_selector;
use super::image::pull_policy;
use super::value::{
    default_nil, default_str, each_obj, is_empty_str, is_nil, obj_mut, set, str_of, Obj,
};
use crate::Minor;
use serde_json::Value;

/// Every `VolumeSource` member (Go field order). `image` exists from 1.31 (ImageVolume API).
const SOURCES: [&str; 29] = [
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
];

/// The defaults of one `spec.volumes[i]`, in the generated order.
pub fn volume(v: &mut Obj, minor: Minor) {
    set_defaults_volume(v, minor);
    if let Some(o) = obj_mut(v, "hostPath") {
        host_path(o);
    }
    if let Some(o) = obj_mut(v, "secret") {
        default_mode(o);
    }
    if let Some(o) = obj_mut(v, "iscsi") {
        iscsi(o);
    }
    if let Some(o) = obj_mut(v, "rbd") {
        rbd(o);
    }
    if let Some(o) = obj_mut(v, "downwardAPI") {
        default_mode(o);
        downward_api_items(o);
    }
    if let Some(o) = obj_mut(v, "configMap") {
        default_mode(o);
    }
    if let Some(o) = obj_mut(v, "azureDisk") {
        azure_disk(o);
    }
    if let Some(o) = obj_mut(v, "projected") {
        projected(o);
    }
    if let Some(o) = obj_mut(v, "scaleIO") {
        scale_io(o);
    }
    let claim = obj_mut(v, "ephemeral").and_then(|e| obj_mut(e, "volumeClaimTemplate"));
    if let Some(template) = claim {
        // Only the claim *spec* defaults: the template is not a PersistentVolumeClaim.
        if let Some(spec) = super::value::obj_or_new(template, "spec") {
            persistent_volume_claim_spec(spec);
        }
    }
}

/// `SetDefaults_Volume`: no source at all → `emptyDir: {}`; gate ImageVolume (beta,
/// on by default from 1.35): `image.pullPolicy` from the reference's tag.
fn set_defaults_volume(v: &mut Obj, minor: Minor) {
    let has_image_source = minor >= 31 && !is_nil(v, "image");
    if !has_image_source && SOURCES.iter().all(|s| is_nil(v, s)) {
        set(v, "emptyDir", Value::Object(Obj::new()));
    }
    if minor >= 35 {
        if let Some(image) = obj_mut(v, "image") {
            if is_empty_str(image, "pullPolicy") {
                if let Some(reference) = str_of(image, "reference") {
                    let policy = pull_policy(reference);
                    default_str(image, "pullPolicy", policy);
                }
            }
        }
    }
}

/// `SetDefaults_HostPathVolumeSource`: type nil → "" (HostPathUnset), which then shows.
pub fn host_path(o: &mut Obj) {
    default_nil(o, "type", Value::from(""));
}

/// `SetDefaults_{Secret,ConfigMap,DownwardAPI,Projected}VolumeSource`: defaultMode nil → 0644.
fn default_mode(o: &mut Obj) {
    default_nil(o, "defaultMode", Value::from(420));
}

/// Each downward API item's `fieldRef` → `SetDefaults_ObjectFieldSelector`.
fn downward_api_items(o: &mut Obj) {
    for item in each_obj(o, "items") {
        if let Some(field_ref) = obj_mut(item, "fieldRef") {
            object_field_selector(field_ref);
        }
    }
}

/// Projected: defaultMode, then per source the downward API items and
/// `SetDefaults_ServiceAccountTokenProjection` (expirationSeconds nil → 3600).
fn projected(o: &mut Obj) {
    default_mode(o);
    for source in each_obj(o, "sources") {
        if let Some(d) = obj_mut(source, "downwardAPI") {
            downward_api_items(d);
        }
        if let Some(token) = obj_mut(source, "serviceAccountToken") {
            default_nil(token, "expirationSeconds", Value::from(3600));
        }
    }
}

/// ISCSI(Persistent)VolumeSource.iscsiInterface `+default="default"` (a SetDefaults_ function
/// before 1.31, same value).
pub fn iscsi(o: &mut Obj) {
    default_str(o, "iscsiInterface", "default");
}

/// RBD(Persistent)VolumeSource: pool `rbd`, user `admin`, keyring `/etc/ceph/keyring`.
pub fn rbd(o: &mut Obj) {
    default_str(o, "pool", "rbd");
    default_str(o, "user", "admin");
    default_str(o, "keyring", "/etc/ceph/keyring");
}

/// AzureDiskVolumeSource (pointer fields, so each shows once defaulted; Go field order):
/// cachingMode ReadWrite, fsType ext4, readOnly false, kind Shared.
pub fn azure_disk(o: &mut Obj) {
    default_nil(o, "cachingMode", Value::from("ReadWrite"));
    default_nil(o, "fsType", Value::from("ext4"));
    default_nil(o, "readOnly", Value::Bool(false));
    default_nil(o, "kind", Value::from("Shared"));
}

/// ScaleIO(Persistent)VolumeSource: storageMode ThinProvisioned, fsType xfs.
pub fn scale_io(o: &mut Obj) {
    default_str(o, "storageMode", "ThinProvisioned");
    default_str(o, "fsType", "xfs");
}

/// `SetDefaults_PersistentVolumeClaimSpec`: volumeMode nil → Filesystem.
pub fn persistent_volume_claim_spec(spec: &mut Obj) {
    default_nil(spec, "volumeMode", Value::from("Filesystem"));
}
