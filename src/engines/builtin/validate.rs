//! The validate half of create for a built-in kind: native validation
//! (`kadmit_native::validation`) of the object as the server holds it (defaulted),
//! refused as the server's 422 in kubectl's words (`The Deployment
//! "web" is invalid: …`, every field error at once). On UPDATE, the update rules
//! (`kadmit_native::validation::validate_update`) compare it with the old object, read
//! as the server stores it (decoded and defaulted like the new one).

use super::Stage;
use crate::core::diagnostic::Diagnostic;
use crate::core::pipeline::{Context, Operation, Validator};
use crate::core::resource::Resource;
use kadmit_schema::admission::{FieldValidation, Refused};
use kadmit_schema::builtin::strict_decode;
use serde_json::Value;

pub(super) struct Validate(pub Stage);

impl Validator for Validate {
    fn validate(&self, resource: &Resource, cx: &Context) -> Vec<Diagnostic> {
        let stage = &self.0;
        let Ok(Some(kind)) = stage.kind_of(resource) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        // Validation sees the defaulted object; it is already in hand unless the defaults
        // are not written (a document's tree is not copied for nothing: docs/security.md).
        let defaulted;
        let value = if stage.write_defaults {
            &resource.value
        } else {
            let mut copy = resource.value.clone();
            kadmit_native::defaults::run(stage.native_kind(resource), &mut copy, stage.minor);
            defaulted = copy;
            &defaulted
        };
        // The server gives a namespaced object without a namespace the request's (which
        // validation does not look at), and drops the namespace of a cluster-scoped one.
        let has_namespace = value
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .is_some_and(|ns| !ns.is_empty());
        if !kind.namespaced && has_namespace {
            out.push(
                Diagnostic::warning(format!(
                    "metadata.namespace is ignored: {} is cluster-scoped (the API server drops it)",
                    kind.kind
                ))
                .with_resource(&resource.id)
                .with_origin(&resource.origin),
            );
        }
        let native_kind = stage.native_kind(resource);
        let mut causes = kadmit_native::validation::validate(native_kind, value, stage.minor);
        // kadmit's addition to the server's text: what an immutable field was before.
        let mut before = Vec::new();
        if cx.operation_of(resource) == Operation::Update {
            if let Some(old) = cx.old_object_of(resource) {
                let old = stored(stage, &kind, resource, old);
                let update = kadmit_native::validation::validate_update(
                    native_kind,
                    value,
                    &old,
                    stage.minor,
                );
                before = previous_values(&update, &old);
                causes.extend(update);
            }
        }
        if !causes.is_empty() {
            let refusal = Refused::Invalid {
                kind: kind.kind.clone(),
                group: kind.group.clone(),
                name: resource
                    .value
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                causes,
            };
            let mut message = refusal.kubectl_message();
            for (field, was) in before {
                message.push_str(&format!("\n  (before: {field}: {was})"));
            }
            out.push(
                Diagnostic::rejected(message)
                    .with_resource(&resource.id)
                    .with_origin(&resource.origin),
            );
        }
        out
    }
}

/// For every immutable-field error of an UPDATE, the field and its old value as JSON (the
/// server's text names only the new one; a reviewer needs both).
fn previous_values(
    causes: &[kadmit_schema::field_error::FieldError],
    old: &Value,
) -> Vec<(String, String)> {
    causes
        .iter()
        .filter(|c| c.detail.contains("immutable"))
        .filter_map(|c| {
            let was = value_at(old, &c.field)?;
            Some((c.field.clone(), serde_json::to_string(was).ok()?))
        })
        .collect()
}

/// The value at a field path as field errors name it (`spec.selector`,
/// `spec.clusterIPs[0]`, `data[key]`), if the object has one.
fn value_at<'a>(object: &'a Value, path: &str) -> Option<&'a Value> {
    let mut at = object;
    for part in path.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            at = at.get(name)?;
        }
        while let Some(close) = rest.find(']') {
            let key = &rest[1..close];
            at = match at {
                Value::Array(items) => items.get(key.parse::<usize>().ok()?)?,
                Value::Object(map) => map.get(key)?,
                _ => return None,
            };
            rest = &rest[close + 1..];
        }
    }
    Some(at)
}

/// The old object as the server holds it: decoded (unknown fields dropped) and defaulted
/// with the rules of the new one's version.
fn stored(
    stage: &Stage,
    kind: &kadmit_schema::builtin::KindSchema,
    resource: &Resource,
    old: &Value,
) -> Value {
    let mut old = old.clone();
    let decoded = strict_decode(kind, &old, FieldValidation::Ignore);
    decoded.apply(&mut old);
    kadmit_native::defaults::run(stage.native_kind(resource), &mut old, stage.minor);
    old
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::test_support::{context, resource};
    use serde_json::json;

    fn validator() -> Validate {
        Validate(Stage {
            minor: 35,
            field_validation: FieldValidation::Strict,
            write_defaults: false,
        })
    }

    fn deployment(app: &str) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": app}},
                "template": {"metadata": {"labels": {"app": app}},
                    "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
    }

    fn messages(diagnostics: Vec<Diagnostic>) -> Vec<String> {
        diagnostics.into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn a_changed_selector_is_refused_against_the_old_object() {
        let r = resource(deployment("b"), Some(deployment("a")));
        assert_eq!(
            messages(validator().validate(&r, &context(Operation::Create))),
            ["The Deployment \"web\" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"b\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable\n  (before: spec.selector: {\"matchLabels\":{\"app\":\"a\"}})"]
        );
    }

    #[test]
    fn an_unchanged_object_passes_and_a_create_has_no_update_rules() {
        let v = validator();
        let same = resource(deployment("a"), Some(deployment("a")));
        assert!(v.validate(&same, &context(Operation::Create)).is_empty());
        let created = resource(deployment("b"), None);
        assert!(v.validate(&created, &context(Operation::Create)).is_empty());
        // `--operation UPDATE` without an old object: the object is its own old one.
        assert!(v.validate(&created, &context(Operation::Update)).is_empty());
    }

    #[test]
    fn the_old_object_is_defaulted_before_the_comparison() {
        // The stored Service has the defaulted `sessionAffinity: None` and its cluster IP;
        // the manifest leaves both out: nothing changed.
        let service = |extra: Value| {
            let mut s = json!({"apiVersion": "v1", "kind": "Service",
                "metadata": {"name": "s", "namespace": "default"},
                "spec": {"selector": {"app": "a"}, "ports": [{"port": 80}]}});
            s["spec"]
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            s
        };
        let old = service(json!({"clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1"]}));
        let r = resource(service(json!({})), Some(old.clone()));
        assert!(validator()
            .validate(&r, &context(Operation::Create))
            .is_empty());
        let moved = resource(service(json!({"clusterIP": "10.0.0.2"})), Some(old));
        assert_eq!(
            messages(validator().validate(&moved, &context(Operation::Create))),
            ["The Service \"s\" is invalid: spec.clusterIPs[0]: Invalid value: []string{\"10.0.0.2\"}: may not change once set"]
        );
    }
}
