//! The admission request kadmit sends a module, built from a resource the way the API
//! server would build it, with nothing random in it: the `uid` is derived from the
//! resource's identity, so two runs send (and receive) the same bytes.

use super::spec::Protocol;
use serde_json::{json, Map, Value};
use uuid::Uuid;

pub const ADMISSION_API_VERSION: &str = "admission.k8s.io/v1";
pub const ADMISSION_REVIEW: &str = "AdmissionReview";
pub use crate::core::requester::Requester;

/// What the request says about the object besides the object itself.
#[derive(Debug, Clone)]
pub struct Subject<'a> {
    pub group: &'a str,
    pub version: &'a str,
    pub kind: &'a str,
    /// The resource name (plural), e.g. `configmaps`.
    pub resource: &'a str,
    /// `None` for an object that only has a `generateName`.
    pub name: Option<&'a str>,
    /// `None` for a cluster-scoped object.
    pub namespace: Option<&'a str>,
    pub operation: &'a str,
}

/// The request's `uid`: a UUIDv5 of `group/version/kind/namespace/name` in kadmit's
/// namespace (the UUIDv5 of the DNS name `kadmit.dev`).
pub fn request_uid(subject: &Subject) -> String {
    let namespace = Uuid::new_v5(&Uuid::NAMESPACE_DNS, b"kadmit.dev");
    let identity = format!(
        "{}/{}/{}/{}/{}",
        subject.group,
        subject.version,
        subject.kind,
        subject.namespace.unwrap_or(""),
        subject.name.unwrap_or("")
    );
    Uuid::new_v5(&namespace, identity.as_bytes()).to_string()
}

/// An `admission.k8s.io/v1` AdmissionRequest for `object`, whose previous state is `old`
/// (`--old`). DELETE sends the old object as `oldObject` and no `object`; UPDATE sends
/// both. Without a previous state, `object` stands for it (nothing changed).
pub fn admission_request(
    subject: &Subject,
    requester: &Requester,
    uid: &str,
    object: &Value,
    old: Option<&Value>,
) -> Value {
    let kind = json!({"group": subject.group, "version": subject.version, "kind": subject.kind});
    let resource = json!({
        "group": subject.group,
        "version": subject.version,
        "resource": subject.resource,
    });
    let mut request = Map::new();
    request.insert("uid".into(), uid.into());
    request.insert("kind".into(), kind.clone());
    request.insert("resource".into(), resource.clone());
    request.insert("requestKind".into(), kind);
    request.insert("requestResource".into(), resource);
    if let Some(name) = subject.name {
        request.insert("name".into(), name.into());
    }
    if let Some(namespace) = subject.namespace {
        request.insert("namespace".into(), namespace.into());
    }
    request.insert("operation".into(), subject.operation.into());
    request.insert("userInfo".into(), requester.to_value());
    match subject.operation {
        "DELETE" => {
            request.insert("oldObject".into(), old.unwrap_or(object).clone());
        }
        "UPDATE" => {
            request.insert("object".into(), object.clone());
            request.insert("oldObject".into(), old.unwrap_or(object).clone());
        }
        _ => {
            request.insert("object".into(), object.clone());
        }
    }
    request.insert("dryRun".into(), true.into());
    Value::Object(request)
}

/// `{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": …}`.
pub fn admission_review(request: Value) -> Value {
    json!({
        "apiVersion": ADMISSION_API_VERSION,
        "kind": ADMISSION_REVIEW,
        "request": request,
    })
}

/// What a module reads on stdin. k8s-wasi: the AdmissionReview (or TokenReview,
/// SubjectAccessReview) and `settings` only when configured. Kubewarden: the bare
/// AdmissionRequest and `settings`, `{}` when not configured (as `kwctl` sends).
pub fn envelope(protocol: Protocol, request: Value, settings: Option<&Value>) -> Value {
    let mut envelope = Map::new();
    envelope.insert("request".into(), request);
    match (protocol, settings) {
        (_, Some(settings)) => {
            envelope.insert("settings".into(), settings.clone());
        }
        (Protocol::K8sWasi, None) => {}
        (_, None) => {
            envelope.insert("settings".into(), json!({}));
        }
    }
    Value::Object(envelope)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(operation: &'static str) -> Subject<'static> {
        Subject {
            group: "",
            version: "v1",
            kind: "ConfigMap",
            resource: "configmaps",
            name: Some("my-config"),
            namespace: Some("default"),
            operation,
        }
    }

    #[test]
    fn the_request_has_every_field_the_api_server_sends() {
        let object =
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "my-config"}});
        let requester = Requester::new(Some("magic-user"), &["magic-group".into()]);
        let request = admission_request(&subject("CREATE"), &requester, "u-1", &object, None);
        assert_eq!(
            request,
            json!({
                "uid": "u-1",
                "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
                "resource": {"group": "", "version": "v1", "resource": "configmaps"},
                "requestKind": {"group": "", "version": "v1", "kind": "ConfigMap"},
                "requestResource": {"group": "", "version": "v1", "resource": "configmaps"},
                "name": "my-config",
                "namespace": "default",
                "operation": "CREATE",
                "userInfo": {"username": "magic-user", "groups": ["magic-group", "system:authenticated"]},
                "object": object,
                "dryRun": true,
            })
        );
    }

    #[test]
    fn delete_sends_the_old_object_only() {
        let object = json!({"kind": "ConfigMap"});
        let request = admission_request(
            &subject("DELETE"),
            &Requester::new(None, &[]),
            "u",
            &object,
            None,
        );
        assert_eq!(request["oldObject"], object);
        assert!(request.get("object").is_none());
        assert_eq!(request["userInfo"]["username"], "kadmit");
        assert_eq!(
            request["userInfo"]["groups"],
            json!(["system:authenticated"])
        );
    }

    #[test]
    fn update_sends_the_previous_state_as_old_object() {
        let object = json!({"kind": "ConfigMap", "data": {"k": "new"}});
        let old = json!({"kind": "ConfigMap", "data": {"k": "old"}});
        let requester = Requester::new(None, &[]);
        let request = admission_request(&subject("UPDATE"), &requester, "u", &object, Some(&old));
        assert_eq!((&request["object"], &request["oldObject"]), (&object, &old));
        let request = admission_request(&subject("DELETE"), &requester, "u", &old, Some(&old));
        assert_eq!(request["oldObject"], old);
        assert!(request.get("object").is_none());
    }

    #[test]
    fn uids_are_stable_and_tell_resources_apart() {
        let a = request_uid(&subject("CREATE"));
        assert_eq!(a, request_uid(&subject("CREATE")));
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "5", "a version-5 UUID: {a}");
        let other = Subject {
            name: Some("other"),
            ..subject("CREATE")
        };
        assert_ne!(a, request_uid(&other));
    }

    #[test]
    fn settings_are_sent_only_when_configured_for_k8s_wasi() {
        let plain = envelope(Protocol::K8sWasi, json!({}), None);
        assert!(plain.get("settings").is_none());
        let configured = envelope(Protocol::K8sWasi, json!({}), Some(&json!({})));
        assert_eq!(configured["settings"], json!({}));
        let kubewarden = envelope(Protocol::KubewardenWasi, json!({}), None);
        assert_eq!(kubewarden["settings"], json!({}));
    }
}
