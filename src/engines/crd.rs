//! CRDs in the admission pipeline: the decode half of create (prune, default) in the
//! defaulting stage, the validate half in the schema-validation stage, for every resource
//! whose group and kind a CRD in the stream, in `--config` or in `--crd` defines. On
//! UPDATE the validate half is the server's `ValidateUpdate` against the old object
//! (transition rules, ratcheting, ObjectMeta update rules).

use crate::core::diagnostic::Diagnostic;
use crate::core::engine::{Configuration, CrdDocument, Engine};
use crate::core::pipeline::Pipeline;
use crate::core::pipeline::{Change, Context, Mutation, Mutator, Operation, Validator};
use crate::core::resource::{Origin, Resource};
use kadmit_schema::admission::{
    check, check_update, prepare, Definition, FieldValidation, Refused, Settings,
};
use kadmit_schema::lazy::LazyCrd;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The CRD engine: custom resources are pruned and defaulted in the defaulting stage and
/// validated in the schema-validation stage.
pub struct Crds {
    pub settings: Settings,
}

impl Engine for Crds {
    fn compile(&mut self, config: &Configuration<'_>, pipeline: &mut Pipeline) -> Vec<Diagnostic> {
        let (definitions, problems) = Definitions::load(config.crds);
        if !definitions.is_empty() {
            let (decode, validate) = stages(definitions, self.settings);
            pipeline.defaulting.push(decode);
            pipeline.schema_validation.push(validate);
        }
        problems
    }
}

/// The CRDs of a run by (group, kind), each checked up front only as far as it defines
/// its kind; its schemas are checked and compiled when a resource of the kind is first
/// admitted (docs/schema.md "CRDs are compiled when used").
#[derive(Default)]
pub struct Definitions {
    by_kind: BTreeMap<(String, String), Entry>,
}

/// One CRD of the run, with the place it was read from for reporting its schemas.
struct Entry {
    lazy: LazyCrd<Definition>,
    origin: Origin,
}

impl Definitions {
    /// Reads every CRD's identity; each CRD refused on that ground is reported (a
    /// configuration error), with every problem it has.
    pub fn load(crds: &[CrdDocument]) -> (Definitions, Vec<Diagnostic>) {
        let mut out = Definitions::default();
        let mut problems = Vec::new();
        for crd in crds {
            match LazyCrd::definition(crd.value.clone()) {
                Ok(lazy) => {
                    let key = (lazy.group.clone(), lazy.kind.clone());
                    let origin = crd.origin.clone();
                    out.by_kind.insert(key, Entry { lazy, origin });
                }
                Err(refusal) => {
                    problems.push(unusable(&crd_name(&crd.value), &refusal, &crd.origin))
                }
            }
        }
        (out, problems)
    }

    pub fn is_empty(&self) -> bool {
        self.by_kind.is_empty()
    }

    fn get(&self, resource: &Resource) -> Option<&Entry> {
        self.by_kind
            .get(&(resource.id.group.clone(), resource.id.kind.clone()))
    }
}

fn crd_name(value: &Value) -> String {
    value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

/// A CRD the API server would refuse: a configuration error at the CRD.
fn unusable(name: &str, refusal: &Refused, origin: &Origin) -> Diagnostic {
    Diagnostic::config(refusal.kubectl_message())
        .with_rule(format!("CustomResourceDefinition {name}"))
        .with_origin(origin)
}

/// The two pipeline stages for `definitions`.
pub fn stages(
    definitions: Definitions,
    settings: Settings,
) -> (Box<dyn Mutator>, Box<dyn Validator>) {
    let definitions = Arc::new(definitions);
    (
        Box::new(Decode {
            definitions: definitions.clone(),
            settings,
        }),
        Box::new(Validate { definitions }),
    )
}

struct Decode {
    definitions: Arc<Definitions>,
    settings: Settings,
}

fn refused(resource: &Resource, refusal: &Refused) -> Diagnostic {
    Diagnostic::rejected(refusal.kubectl_message())
        .with_resource(&resource.id)
        .with_origin(&resource.origin)
}

fn warning(resource: &Resource, text: &str) -> Diagnostic {
    Diagnostic::warning(text)
        .with_resource(&resource.id)
        .with_origin(&resource.origin)
}

impl Mutator for Decode {
    fn mutate(&self, resource: &mut Resource, _: &Context) -> Mutation {
        let Some(entry) = self.definitions.get(resource) else {
            return Mutation::default();
        };
        let definition = match entry.lazy.get() {
            Ok(definition) => definition,
            // Its schemas were first checked for this resource: the CRD's problem, told
            // with every resource of its kind (which goes no further, as the kind would
            // not exist on a server that refused the CRD).
            Err(refusal) => {
                return Mutation {
                    changes: Vec::new(),
                    diagnostics: vec![unusable(&entry.lazy.name, refusal, &entry.origin)
                        .with_resource(&resource.id)],
                    unrecorded: false,
                }
            }
        };
        match prepare(definition, &resource.value, self.settings) {
            Ok(created) => {
                let rule = format!("CustomResourceDefinition {}", definition.crd.name);
                // Pruning, metadata coercion and a dropped status are not recorded (the
                // defaults are): any change at all sets the flag, which only says that the
                // document is to be written anew.
                let unrecorded = created.object != resource.value;
                resource.value = created.object;
                Mutation {
                    unrecorded,
                    changes: created
                        .defaulted
                        .into_iter()
                        .map(|path| Change {
                            path,
                            rule: rule.clone(),
                        })
                        .collect(),
                    diagnostics: created
                        .warnings
                        .iter()
                        .map(|w| warning(resource, w))
                        .collect(),
                }
            }
            Err(refusal) => Mutation {
                changes: Vec::new(),
                diagnostics: vec![refused(resource, &refusal)],
                unrecorded: false,
            },
        }
    }
}

struct Validate {
    definitions: Arc<Definitions>,
}

impl Validate {
    /// The old object as the server stores it: pruned and defaulted (the decode half,
    /// unknown fields dropped silently); as it is when it does not decode.
    fn stored(&self, definition: &Definition, old: &Value) -> Value {
        let settings = Settings {
            field_validation: FieldValidation::Ignore,
            write_defaults: true,
        };
        prepare(definition, old, settings).map_or_else(|_| old.clone(), |p| p.object)
    }
}

impl Validator for Validate {
    fn validate(&self, resource: &Resource, cx: &Context) -> Vec<Diagnostic> {
        // A CRD refused for its schemas was reported by the decode half.
        let Some(Ok(definition)) = self.definitions.get(resource).map(|e| e.lazy.get()) else {
            return Vec::new();
        };
        let update = cx.operation_of(resource) == Operation::Update;
        let old = cx
            .old_object_of(resource)
            .filter(|_| update)
            .map(|old| self.stored(definition, old));
        let checked = match &old {
            Some(old) => check_update(definition, &resource.value, old, &cx.default_namespace),
            None => check(definition, &resource.value, &cx.default_namespace),
        };
        match checked {
            Ok(checked) => {
                let mut out: Vec<Diagnostic> = checked
                    .warnings
                    .iter()
                    .map(|w| warning(resource, w))
                    .collect();
                if checked.skipped_transition_rules > 0 && !update {
                    out.push(warning(
                        resource,
                        &format!(
                            "{} transition rule(s) (oldSelf) not evaluated: they run on update only",
                            checked.skipped_transition_rules
                        ),
                    ));
                }
                out
            }
            Err(refusal) => vec![refused(resource, &refusal)],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::test_support::{context, resource};
    use kadmit_schema::admission::FieldValidation;
    use serde_json::json;

    fn validator() -> Box<dyn Validator> {
        let crd = CrdDocument::of(resource(
            json!({
                "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": "widgets.example.com"},
                "spec": {"group": "example.com", "scope": "Namespaced",
                    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                    "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                        "type": "object", "properties": {"spec": {"type": "object", "properties": {
                            "size": {"type": "string", "default": "s",
                                "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "size is immutable"}]},
                            "count": {"type": "integer", "maximum": 3}}}}}}}]}
            }),
            None,
        ));
        let (definitions, problems) = Definitions::load(&[crd]);
        assert!(problems.is_empty());
        let settings = Settings {
            field_validation: FieldValidation::Strict,
            write_defaults: true,
        };
        stages(definitions, settings).1
    }

    fn widget(spec: Value) -> Value {
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "namespace": "default"}, "spec": spec})
    }

    fn messages(diagnostics: Vec<Diagnostic>) -> Vec<String> {
        diagnostics.into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn an_old_object_makes_the_transition_rules_run() {
        let v = validator();
        let cx = context(Operation::Create);
        let changed = resource(
            widget(json!({"size": "m"})),
            Some(widget(json!({"size": "l"}))),
        );
        assert_eq!(
            messages(v.validate(&changed, &cx)),
            ["The Widget \"w\" is invalid: spec.size: Invalid value: \"m\": size is immutable"]
        );
        let same = resource(
            widget(json!({"size": "l"})),
            Some(widget(json!({"size": "l"}))),
        );
        assert!(v.validate(&same, &cx).is_empty());
    }

    #[test]
    fn the_old_object_is_defaulted_as_the_server_stores_it() {
        // The stored object has the default `s`; the new one says `s` explicitly.
        let v = validator();
        let r = resource(widget(json!({"size": "s"})), Some(widget(json!({}))));
        assert!(v.validate(&r, &context(Operation::Create)).is_empty());
    }

    #[test]
    fn unchanged_invalid_values_are_ratcheted_and_changed_ones_reported() {
        let v = validator();
        let cx = context(Operation::Create);
        let r = resource(
            widget(json!({"count": 9})),
            Some(widget(json!({"count": 9}))),
        );
        assert!(v.validate(&r, &cx).is_empty());
        let r = resource(
            widget(json!({"count": 8})),
            Some(widget(json!({"count": 9}))),
        );
        assert_eq!(
            messages(v.validate(&r, &cx)),
            ["The Widget \"w\" is invalid: spec.count: Invalid value: 8: spec.count in body should be less than or equal to 3"]
        );
    }

    #[test]
    fn create_skips_transition_rules_with_a_warning_and_update_without_old_compares_with_itself() {
        let v = validator();
        let r = resource(widget(json!({"size": "m", "count": 1})), None);
        let created = messages(v.validate(&r, &context(Operation::Create)));
        assert_eq!(created.len(), 1, "{created:?}");
        assert!(created[0].contains("transition rule(s) (oldSelf) not evaluated"));
        let r = resource(widget(json!({"size": "m", "count": 9})), None);
        assert_eq!(v.validate(&r, &context(Operation::Create)).len(), 1);
        // --operation UPDATE without --old: the object is its own old object.
        assert!(v.validate(&r, &context(Operation::Update)).is_empty());
    }
}
