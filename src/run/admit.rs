//! Admission of everything read: each resource through the pipeline in input order, then
//! (in `generate`) each generator input turned into resources that are admitted too.

use super::intake::{Intake, Slot};
use super::old::OldObjects;
use super::{Admitted, Mode, Options, Subject, CHANGED_BY_ANNOTATION};
use crate::core::diagnostic::{has_errors, Diagnostic};
use crate::core::pipeline::{Change, Context, Pipeline};
use crate::core::resource::{Identity, Origin, Resource, FUNCTION_ANNOTATION, LOCAL_CONFIG};
use crate::io::encode::Encoder;
use kadmit_yaml::spans::ItemText;
use serde_json::Value;

/// One run's admission: what it needs, and what it has found so far.
pub(super) struct Admitter<'a> {
    pub pipeline: &'a Pipeline,
    pub cx: &'a Context,
    pub options: &'a Options,
    /// The previous state (`--old`), matched to resources as they are admitted.
    pub old: &'a mut OldObjects,
    pub diagnostics: Vec<Diagnostic>,
    pub changes: Vec<(Identity, Vec<Change>)>,
    /// Every resource that went through admission, in order.
    pub subjects: Vec<Subject>,
    /// With ExpansionTemplates in `generate`: the resultants, printed instead of the
    /// resources they came from.
    pub resultants: Option<Vec<Value>>,
    /// With `Options::keep_admitted`: each resource as read and as admitted.
    pub admitted: Option<Vec<Admitted>>,
}

impl Admitter<'_> {
    /// Admits every slot into `encoder`, then generates when the mode asks for it. Unless
    /// `keep_input` (a KRM failure echoes the input), each stored document is freed as soon
    /// as it is written, so the input and the output are not both held in full.
    pub fn admit_all(&mut self, intake: &mut Intake, encoder: &mut Encoder, keep_input: bool) {
        if keep_input {
            for slot in &intake.slots {
                self.admit_slot(slot, encoder);
            }
        } else {
            for slot in std::mem::take(&mut intake.slots) {
                self.admit_slot(&slot, encoder);
            }
        }
        if matches!(self.options.mode, Mode::Generate | Mode::Krm) {
            self.generate_all(intake, encoder);
        }
        self.admit_deletions();
        if let (Some(mut resultants), Some(expander)) =
            (self.resultants.take(), self.pipeline.expander.as_ref())
        {
            expander.order(&mut resultants);
            for resultant in &resultants {
                encoder.push(resultant);
            }
        }
    }

    /// Writes an admitted resource, or with ExpansionTemplates keeps its resultants.
    /// `source`: the KRM item's own text and the value it read as.
    fn emit(
        &mut self,
        resource: &Resource,
        source: Option<(&Value, &ItemText)>,
        encoder: &mut Encoder,
    ) {
        let (Some(resultants), Some(expander)) =
            (self.resultants.as_mut(), self.pipeline.expander.as_ref())
        else {
            return write(encoder, &resource.value, source);
        };
        match expander.expand(resource, self.cx) {
            Ok(mut values) => resultants.append(&mut values),
            Err(problems) => self.diagnostics.extend(problems),
        }
    }

    fn admit_slot(&mut self, slot: &Slot, encoder: &mut Encoder) {
        if slot.passthrough {
            let value = slot.value();
            return write(encoder, &value, slot.source.as_deref().map(|s| (&value, s)));
        }
        let mut resource = slot.resource();
        let original = slot.source.as_ref().map(|_| resource.value.clone());
        let source = original.as_ref().zip(slot.source.as_deref());
        if slot.list {
            self.admit_list_items(&mut resource);
            return write(encoder, &resource.value, source);
        }
        if !self.pipeline.is_empty() {
            self.admit_one(&mut resource);
        } else {
            self.record(&mut resource);
        }
        if let (true, Some(admitted)) = (self.pipeline.is_empty(), self.admitted.as_mut()) {
            let at = self.diagnostics.len();
            admitted.push(Admitted {
                id: resource.id.clone(),
                origin: resource.origin.clone(),
                operation: self.cx.operation_of(&resource),
                old: resource.old.clone(),
                before: resource.value.clone(),
                after: Some(resource.value.clone()),
                changes: Vec::new(),
                diagnostics: at..at,
            });
        }
        self.emit(&resource, source, encoder);
    }

    /// A KRM `*List` kept whole: its items are admitted in place.
    fn admit_list_items(&mut self, list: &mut Resource) {
        let Some(Value::Array(items)) = list.value.get_mut("items") else {
            return;
        };
        for (i, item) in items.iter_mut().enumerate() {
            let origin = Origin {
                list_item: Some(i),
                ..list.origin.clone()
            };
            // Items without an identity were reported when the list was read.
            let Ok(id) = Identity::of(item) else {
                continue;
            };
            let mut resource = Resource {
                value: std::mem::take(item),
                id,
                origin,
                old: None,
            };
            self.admit_one(&mut resource);
            *item = resource.value;
        }
    }

    /// Gives the resource its old object (`--old`), if it has one, and keeps who was
    /// admitted, from where and with which operation, for the reports.
    fn record(&mut self, resource: &mut Resource) {
        if resource.old.is_none() {
            // Stored (defaulted) by the pipeline's admission (`Pipeline::admit`).
            resource.old = self.old.take(resource, self.cx).map(std::sync::Arc::new);
        }
        self.subjects.push(Subject {
            id: resource.id.clone(),
            origin: resource.origin.clone(),
            namespace: self.cx.effective_namespace(resource).map(str::to_owned),
            operation: self.cx.operation_of(resource),
        });
    }

    /// Every old object the stream no longer has, as a DELETE through the validating
    /// phase: reported, never written.
    fn admit_deletions(&mut self) {
        let (pipeline, cx) = (self.pipeline, self.cx);
        let deletions: Vec<Resource> = self
            .old
            .deletions(|old, id, origin| pipeline.stored(old, id, origin, cx))
            .collect();
        for resource in deletions {
            self.subjects.push(Subject {
                id: resource.id.clone(),
                origin: resource.origin.clone(),
                namespace: self.cx.effective_namespace(&resource).map(str::to_owned),
                operation: self.cx.operation_of(&resource),
            });
            let first = self.diagnostics.len();
            let admission = self.pipeline.admit_deletion(&resource, self.cx);
            self.diagnostics.extend(admission.diagnostics);
            if let Some(admitted) = self.admitted.as_mut() {
                admitted.push(Admitted {
                    id: resource.id.clone(),
                    origin: resource.origin.clone(),
                    operation: self.cx.operation_of(&resource),
                    old: resource.old.clone(),
                    before: Value::Null,
                    after: None,
                    changes: Vec::new(),
                    diagnostics: first..self.diagnostics.len(),
                });
            }
        }
    }

    fn admit_one(&mut self, resource: &mut Resource) {
        self.record(resource);
        let before = self.admitted.is_some().then(|| resource.value.clone());
        let admission = self.pipeline.admit(resource, self.cx);
        if self.options.annotate && !admission.changes.is_empty() {
            let mut rules: Vec<&str> = Vec::new();
            for change in &admission.changes {
                if !rules.contains(&change.rule.as_str()) {
                    rules.push(&change.rule);
                }
            }
            let rules = rules.join(", ");
            resource.set_annotation(CHANGED_BY_ANNOTATION, rules);
        }
        let first = self.diagnostics.len();
        self.diagnostics.extend(admission.diagnostics);
        if let (Some(admitted), Some(before)) = (self.admitted.as_mut(), before) {
            let rejected = has_errors(&self.diagnostics[first..]);
            admitted.push(Admitted {
                id: resource.id.clone(),
                origin: resource.origin.clone(),
                operation: self.cx.operation_of(resource),
                old: resource.old.clone(),
                before,
                after: (!rejected).then(|| resource.value.clone()),
                changes: admission.changes.clone(),
                diagnostics: first..self.diagnostics.len(),
            });
        }
        if !admission.changes.is_empty() {
            self.changes.push((resource.id.clone(), admission.changes));
        }
    }

    /// Generator inputs become resources, appended in input order, each admitted.
    /// Without a subcommand (a KRM function) only the functionConfig asks for generation.
    fn generate_all(&mut self, intake: &Intake, encoder: &mut Encoder) {
        let mode = self.options.mode;
        let virtual_items = intake
            .loader
            .items
            .iter()
            .filter(|item| item.is_generated_in(mode));
        for item in virtual_items {
            let virtual_resource = &item.resource;
            let Some(generator) = self
                .pipeline
                .generators
                .iter()
                .find(|g| g.handles(virtual_resource))
            else {
                self.diagnostics.push(
                    Diagnostic::config(format!(
                        "no generator found for {} {} (kadmit has no generator for this group and kind)",
                        virtual_resource.id.api_version(),
                        virtual_resource.id.kind
                    ))
                    .with_resource(&virtual_resource.id)
                    .with_origin(&virtual_resource.origin),
                );
                continue;
            };
            match generator.generate(item, self.cx) {
                Ok(generated) => {
                    self.diagnostics.extend(generated.warnings);
                    for (i, value) in generated.objects.into_iter().enumerate() {
                        self.admit_generated(virtual_resource, i, value, encoder);
                    }
                }
                Err(problems) => self.diagnostics.extend(problems),
            }
        }
    }

    fn admit_generated(
        &mut self,
        source: &Resource,
        index: usize,
        mut value: Value,
        encoder: &mut Encoder,
    ) {
        strip_config_annotations(&mut value);
        let origin = Origin {
            list_item: Some(index),
            ..source.origin.clone()
        };
        match Resource::new(value, origin.clone()) {
            Ok(mut resource) => {
                self.admit_one(&mut resource);
                self.emit(&resource, None, encoder);
            }
            Err(message) => self.diagnostics.push(
                Diagnostic::config(format!("generated document {}: {message}", index + 1))
                    .with_resource(&source.id)
                    .with_origin(&origin),
            ),
        }
    }
}

/// Generated objects never inherit the markers that made their input configuration.
fn strip_config_annotations(value: &mut Value) {
    if let Some(Value::Object(annotations)) = value.pointer_mut("/metadata/annotations") {
        annotations.remove(LOCAL_CONFIG);
        annotations.remove(FUNCTION_ANNOTATION);
    }
}

/// Writes `value`, from the item's own text where it has one (KRM mode).
fn write(encoder: &mut Encoder, value: &Value, source: Option<(&Value, &ItemText)>) {
    match source {
        Some((original, text)) => encoder.push_item(value, original, text),
        None => encoder.push(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn generated_objects_lose_local_config_and_function_markers() {
        let mut value = json!({"metadata": {"annotations": {
            "config.kubernetes.io/local-config": "true",
            "config.kubernetes.io/function": "exec: {path: x}",
            "team": "a"
        }}});
        strip_config_annotations(&mut value);
        assert_eq!(value, json!({"metadata": {"annotations": {"team": "a"}}}));
    }
}
