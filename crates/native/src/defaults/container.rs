//! What the generated walk does for each container, init container and ephemeral container
//! of a pod spec (core/v1 `zz_generated.defaults.go`), in its order: `SetDefaults_Container`,
//! port protocol (`+default="TCP"`), env `valueFrom`, probes (`SetDefaults_Probe` then
//! `SetDefaults_HTTPGetAction`), lifecycle hooks' `httpGet`.
//!
//! `SetDefaults_ResourceList` (round every quantity up to milli scale) is not reproduced:
//! quantities are left as given (re-serialising a Quantity canonically is the codec's job).

use super::image::pull_policy;
use super::value::{default_int, default_nil, default_str, each_obj, obj_mut, str_of, Obj};
use crate::Minor;
use serde_json::Value;

/// Every default of one container (`Container` or `EphemeralContainer`: same fields).
pub fn container(c: &mut Obj, minor: Minor) {
    set_defaults_container(c);
    for port in each_obj(c, "ports") {
        // ContainerPort.protocol: `+default="TCP"` (declarative).
        default_str(port, "protocol", "TCP");
    }
    for env in each_obj(c, "env") {
        if let Some(from) = obj_mut(env, "valueFrom") {
            env_var_source(from, minor);
        }
    }
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if let Some(p) = obj_mut(c, probe) {
            set_defaults_probe(p);
        }
    }
    if let Some(lifecycle) = obj_mut(c, "lifecycle") {
        for hook in ["postStart", "preStop"] {
            if let Some(get) = obj_mut(lifecycle, hook).and_then(|h| obj_mut(h, "httpGet")) {
                set_defaults_http_get_action(get);
            }
        }
    }
}

/// `SetDefaults_Container`: imagePullPolicy from the image's tag, termination message path
/// and policy.
fn set_defaults_container(c: &mut Obj) {
    if super::value::is_empty_str(c, "imagePullPolicy") {
        // A non-string image fails decoding elsewhere: leave the policy alone then.
        if let Some(image) = str_of(c, "image") {
            let policy = pull_policy(image);
            default_str(c, "imagePullPolicy", policy);
        }
    }
    default_str(c, "terminationMessagePath", "/dev/termination-log");
    default_str(c, "terminationMessagePolicy", "File");
}

/// EnvVarSource: `fieldRef` → `SetDefaults_ObjectFieldSelector`; `fileKeyRef.optional`
/// `+default=false` (FileKeySelector exists from 1.34, the EnvFiles API).
fn env_var_source(from: &mut Obj, minor: Minor) {
    if let Some(field_ref) = obj_mut(from, "fieldRef") {
        object_field_selector(field_ref);
    }
    if minor >= 34 {
        if let Some(file_ref) = obj_mut(from, "fileKeyRef") {
            default_nil(file_ref, "optional", Value::Bool(false));
        }
    }
}

/// `SetDefaults_ObjectFieldSelector`: apiVersion "" → v1.
pub fn object_field_selector(o: &mut Obj) {
    default_str(o, "apiVersion", "v1");
}

/// `SetDefaults_Probe` (non-pointer ints: 0 counts as unset), then the handler's defaults.
fn set_defaults_probe(p: &mut Obj) {
    default_int(p, "timeoutSeconds", 1);
    default_int(p, "periodSeconds", 10);
    default_int(p, "successThreshold", 1);
    default_int(p, "failureThreshold", 3);
    if let Some(get) = obj_mut(p, "httpGet") {
        set_defaults_http_get_action(get);
    }
    if let Some(grpc) = obj_mut(p, "grpc") {
        // GRPCAction.service is `*string` with `+default=""`: it materialises as "".
        default_nil(grpc, "service", Value::from(""));
    }
}

/// `SetDefaults_HTTPGetAction`: path "" → "/", scheme "" → HTTP.
fn set_defaults_http_get_action(get: &mut Obj) {
    default_str(get, "path", "/");
    default_str(get, "scheme", "HTTP");
}
