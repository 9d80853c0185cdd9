//! What the API server does to the object of an UPDATE around admission, so that rules
//! see what they would see on the server, while the stream kadmit writes stays the
//! manifest (it never gains a field the server populates).
//!
//! The server (k8s.io/apiserver `registry/rest/update.go`, `BeforeUpdate`, and each
//! strategy's `PrepareForUpdate`): the object a client sends with `kubectl apply` is the
//! stored object with the patch applied, so it carries the stored `uid`,
//! `creationTimestamp`, `resourceVersion`, `managedFields` and `status`; `BeforeUpdate`
//! then keeps the stored `generation` (a request cannot change it), `uid` when none is
//! given, `creationTimestamp` and `deletionTimestamp`; `PrepareForUpdate` resets `status`
//! from the stored object for kinds served with a status subresource and bumps
//! `generation` when the spec changed. kadmit fills these fields from the old object
//! before admission ([`carry`]), bumps `generation` before validation
//! ([`bump_generation`]), and puts the manifest's own values back afterwards
//! ([`Carried::restore`]). A field the old object does not have is never invented.

use serde_json::{Map, Value};

/// Metadata fields the server fills from the stored object on UPDATE, and whether the
/// stored value wins over one the manifest gives (`true`) or only fills a missing one.
const SERVER_METADATA: &[(&str, bool)] = &[
    ("uid", false),
    ("creationTimestamp", true),
    ("resourceVersion", false),
    ("generation", true),
    ("managedFields", false),
    ("deletionTimestamp", true),
    ("deletionGracePeriodSeconds", true),
];

/// The manifest's own values of the fields [`carry`] filled, to be put back.
#[derive(Debug, Default)]
pub struct Carried {
    metadata: Vec<(&'static str, Option<Value>)>,
    /// `Some(own)` when `status` was reset from the old object.
    status: Option<Option<Value>>,
}

/// Fills `new` with what the server's UPDATE takes from `old` (the module comment).
/// `reset_status`: the kind is served with a status subresource.
pub fn carry(new: &mut Value, old: &Value, reset_status: bool) -> Carried {
    let mut carried = Carried::default();
    let (Some(Value::Object(metadata)), Some(old_metadata)) =
        (new.get_mut("metadata"), old.get("metadata"))
    else {
        return carried;
    };
    for &(field, stored_wins) in SERVER_METADATA {
        let Some(stored) = old_metadata.get(field).filter(|v| !v.is_null()) else {
            continue;
        };
        let own = metadata.get(field).filter(|v| !v.is_null()).cloned();
        if own.is_some() && !stored_wins {
            continue;
        }
        metadata.insert(field.to_owned(), stored.clone());
        carried.metadata.push((field, own));
    }
    if reset_status {
        if let Value::Object(object) = new {
            let own = object.get("status").cloned();
            match old.get("status") {
                Some(status) => {
                    object.insert("status".into(), status.clone());
                }
                None => {
                    object.remove("status");
                }
            }
            if own.is_some() || old.get("status").is_some() {
                carried.status = Some(own);
            }
        }
    }
    carried
}

/// The strategies' generation rule, run before validation: when the old object has a
/// `generation`, it grows by one if what the kind versions changed — `spec` for built-in
/// kinds; for custom resources everything but `metadata` (and `status` when it is a
/// subresource).
pub fn bump_generation(new: &mut Value, old: &Value, custom: bool, status_subresource: bool) {
    let Some(generation) = old.pointer("/metadata/generation").and_then(Value::as_i64) else {
        return;
    };
    let changed = if custom {
        let skipped: &[&str] = if status_subresource {
            &["metadata", "status"]
        } else {
            &["metadata"]
        };
        versioned(new, skipped) != versioned(old, skipped)
    } else {
        new.get("spec") != old.get("spec")
    };
    if changed {
        if let Some(Value::Object(metadata)) = new.get_mut("metadata") {
            metadata.insert("generation".into(), (generation + 1).into());
        }
    }
}

/// The top-level fields of `object` except `skipped`.
fn versioned<'a>(object: &'a Value, skipped: &[&str]) -> Vec<(&'a String, &'a Value)> {
    match object {
        Value::Object(map) => map
            .iter()
            .filter(|(key, _)| !skipped.contains(&key.as_str()))
            .collect(),
        _ => Vec::new(),
    }
}

impl Carried {
    /// Puts the manifest's own values back: the admitted object is written as the
    /// manifest to apply, without what the server would populate.
    pub fn restore(self, object: &mut Value) {
        if let Some(Value::Object(metadata)) = object.get_mut("metadata") {
            for (field, own) in self.metadata {
                put(metadata, field, own);
            }
        }
        if let (Some(own), Value::Object(map)) = (self.status, object) {
            put(map, "status", own);
        }
    }
}

fn put(map: &mut Map<String, Value>, field: &str, value: Option<Value>) {
    match value {
        Some(value) => {
            map.insert(field.to_owned(), value);
        }
        None => {
            map.remove(field);
        }
    }
}

/// The old object as a reviewer compares it with the manifest (`kadmit diff --old`):
/// without what the server populates (the fields above, `status`, `selfLink` and
/// kubectl's last-applied-configuration annotation), which no manifest holds.
pub fn without_server_fields(old: &Value) -> Value {
    let mut shown = old.clone();
    let Value::Object(map) = &mut shown else {
        return shown;
    };
    map.remove("status");
    if let Some(Value::Object(metadata)) = map.get_mut("metadata") {
        for (field, _) in SERVER_METADATA {
            metadata.remove(*field);
        }
        metadata.remove("selfLink");
        if let Some(Value::Object(annotations)) = metadata.get_mut("annotations") {
            annotations.remove(LAST_APPLIED);
            if annotations.is_empty() {
                metadata.remove("annotations");
            }
        }
    }
    shown
}

/// kubectl's client-side apply record, on objects exported from a cluster.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stored() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "uid": "u-1", "generation": 4,
                "resourceVersion": "77", "creationTimestamp": "2024-01-01T00:00:00Z",
                "managedFields": [{"manager": "kubectl"}]},
            "spec": {"replicas": 2}, "status": {"replicas": 2}})
    }

    #[test]
    fn carried_fields_are_the_stored_ones_and_are_put_back() {
        let manifest = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "generation": 9}, "spec": {"replicas": 3},
            "status": {"replicas": 0}});
        let mut new = manifest.clone();
        let carried = carry(&mut new, &stored(), true);
        assert_eq!(new["metadata"]["uid"], "u-1");
        assert_eq!(
            new["metadata"]["generation"], 4,
            "a request cannot set generation"
        );
        assert_eq!(new["metadata"]["resourceVersion"], "77");
        assert_eq!(new["status"], json!({"replicas": 2}));
        bump_generation(&mut new, &stored(), false, true);
        assert_eq!(new["metadata"]["generation"], 5, "spec changed");
        carried.restore(&mut new);
        assert_eq!(new, manifest);
    }

    #[test]
    fn nothing_is_invented_when_the_old_object_has_no_server_fields() {
        let base = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}});
        let mut new = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a"}, "data": {"k": "v"}});
        let before = new.clone();
        let carried = carry(&mut new, &base, true);
        bump_generation(&mut new, &base, false, true);
        assert_eq!(new, before);
        carried.restore(&mut new);
        assert_eq!(new, before);
    }

    #[test]
    fn custom_resources_bump_on_any_change_but_metadata_and_status() {
        let old = json!({"metadata": {"generation": 1}, "spec": {"a": 1}, "status": {"s": 1}});
        let mut new = json!({"metadata": {"generation": 1}, "spec": {"a": 1}, "status": {"s": 2}});
        bump_generation(&mut new, &old, true, true);
        assert_eq!(new["metadata"]["generation"], 1);
        bump_generation(&mut new, &old, true, false);
        assert_eq!(new["metadata"]["generation"], 2);
    }

    #[test]
    fn the_reviewed_old_object_has_no_server_fields() {
        let mut old = stored();
        old["metadata"]["annotations"] = json!({LAST_APPLIED: "{}"});
        let shown = without_server_fields(&old);
        assert_eq!(
            shown,
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "web"}, "spec": {"replicas": 2}})
        );
    }
}
