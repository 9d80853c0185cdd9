//! Admission of everything read: each resource through the pipeline, spread over the
//! run's threads window by window and taken back in input order, then (in `generate`)
//! each generator input turned into resources that are admitted too.

use super::intake::{Intake, OwnText, Slot, Texts};
use super::old::OldObjects;
use super::{Admitted, Mode, Options, Subject, CHANGED_BY_ANNOTATION};
use crate::core::diagnostic::{has_errors, Diagnostic};
use crate::core::jobs::Jobs;
use crate::core::pipeline::{Admission, Change, Context, Pipeline};
use crate::core::resource::{Identity, Origin, Resource, FUNCTION_ANNOTATION, LOCAL_CONFIG};
use crate::io::encode::{render, Encoder, Format};
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

/// A slot as admission is given it: borrowed when the input is kept (a KRM failure
/// echoes it), else owned, and freed on the thread that admitted it.
enum Given<'s> {
    Kept(&'s Slot),
    Owned(Slot),
}

impl std::ops::Deref for Given<'_> {
    type Target = Slot;
    fn deref(&self) -> &Slot {
        match self {
            Given::Kept(slot) => slot,
            Given::Owned(slot) => slot,
        }
    }
}

/// What reaches the calling thread for one slot: what the parallel part made of it, or a
/// KRM `*List`, admitted there, item by item, in its place.
enum Taken<'s> {
    Done(Done),
    List(Given<'s>),
}

/// What the parallel part of admission reads: the same for every slot, read-only.
#[derive(Clone, Copy)]
struct Shared<'a, 't> {
    pipeline: &'a Pipeline,
    cx: &'a Context,
    options: &'a Options,
    /// The texts of the inputs, which slots holding a span are read from.
    texts: &'t Texts<'t>,
    keep_admitted: bool,
    keep_subjects: bool,
    format: Format,
}

/// What the parallel part made of one slot.
enum Done {
    /// A document written as it was read (configuration kept in the stream, a KRM item
    /// without identity): rendered, or its own text.
    Passthrough(Written),
    /// A resource with an empty pipeline and no one asking who it was (no reports, no
    /// diff): its own text, neither read again nor rendered.
    Copied(OwnText),
    /// Boxed: most documents of a large stream are copied, and a result is moved twice
    /// between the threads (a `Resource` and its records made every result 632 bytes).
    Resource(Box<ResourceDone>),
}

/// A resource through admission, as the calling thread takes it.
struct ResourceDone {
    resource: Resource,
    /// Who was admitted, when it was not recorded before admission (without `--old`).
    subject: Option<Subject>,
    /// The resource as read, with `Options::keep_admitted`.
    before: Option<Value>,
    /// `None` with an empty pipeline.
    admission: Option<Admission>,
    /// The document as the encoder writes it (its own text when admission left it
    /// as it was read); `None` when ExpansionTemplates print its resultants instead.
    rendered: Option<Written>,
}

/// A document as it goes to the output.
enum Written {
    /// Its own text, written as the range of the input it is (where it lies, found on
    /// the thread that admitted it).
    Own(OwnText),
    Rendered(String),
}

impl Written {
    fn push(self, encoder: &mut Encoder) {
        match self {
            Written::Own(own) => encoder.push_input(own.input, own.range, own.after_separator),
            Written::Rendered(text) => encoder.push_rendered(&text),
        }
    }
}

impl<'a> Admitter<'a> {
    /// Admits every slot into `encoder`, then generates when the mode asks for it. Unless
    /// `keep_input` (a KRM failure echoes the input), each stored document is freed as soon
    /// as it is admitted, on the thread that admitted it, so the input and the output are
    /// not both held in full.
    pub fn admit_all(&mut self, intake: &mut Intake, encoder: &mut Encoder, keep_input: bool) {
        let jobs = intake.jobs.clone();
        let slots = std::mem::take(&mut intake.slots);
        let texts = std::mem::take(&mut intake.texts);
        if keep_input {
            self.admit_slots(slots.iter().map(Given::Kept), &texts, &jobs, encoder);
            intake.slots = slots;
        } else {
            let slots = Shrinking::new(slots).map(Given::Owned);
            self.admit_slots(slots, &texts, &jobs, encoder);
        }
        intake.texts = texts;
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

    /// Admits `slots` over the run's threads, batch by batch, taking the results in
    /// input order while the threads admit the next batch ([`Jobs::map_in_order`]); a KRM
    /// `*List` (its items admitted one by one) on this thread, in its place.
    fn admit_slots<'s>(
        &mut self,
        slots: impl Iterator<Item = Given<'s>>,
        texts: &Texts<'_>,
        jobs: &Jobs,
        encoder: &mut Encoder,
    ) {
        if !self.old.is_empty() {
            return self.admit_slots_with_old(slots, texts, jobs, encoder);
        }
        let shared = self.shared(texts, encoder);
        jobs.map_in_order(
            slots,
            |slot| slot.len(),
            |slot| {
                if slot.list {
                    Taken::List(slot)
                } else {
                    Taken::Done(shared.admit(&slot, None))
                }
            },
            |taken| match taken {
                Taken::List(slot) => self.admit_list(&slot, texts, encoder),
                Taken::Done(done) => self.take_done(done, encoder),
            },
        );
    }

    /// With `--old`: each resource must take its old object in input order before it is
    /// admitted (the first resource of an identity takes it), so slots go in windows of
    /// about [`Jobs::batch_bytes`], each read in parallel, given its old object here,
    /// then admitted and rendered in parallel, and its results taken in input order.
    fn admit_slots_with_old<'s>(
        &mut self,
        slots: impl Iterator<Item = Given<'s>>,
        texts: &Texts<'_>,
        jobs: &Jobs,
        encoder: &mut Encoder,
    ) {
        let mut window = Vec::new();
        let mut bytes = 0;
        for slot in slots {
            if slot.list {
                self.admit_window_with_old(std::mem::take(&mut window), texts, jobs, encoder);
                bytes = 0;
                self.admit_list(&slot, texts, encoder);
                continue;
            }
            bytes += slot.len();
            window.push(slot);
            if bytes >= jobs.batch_bytes() {
                self.admit_window_with_old(std::mem::take(&mut window), texts, jobs, encoder);
                bytes = 0;
            }
        }
        self.admit_window_with_old(window, texts, jobs, encoder);
    }

    fn admit_window_with_old(
        &mut self,
        slots: Vec<Given<'_>>,
        texts: &Texts<'_>,
        jobs: &Jobs,
        encoder: &mut Encoder,
    ) {
        if slots.is_empty() {
            return;
        }
        let mut resources = jobs.map(slots.iter().collect(), |slot: &Given<'_>| {
            (!slot.passthrough).then(|| slot.resource(texts))
        });
        for resource in resources.iter_mut().flatten() {
            self.record(resource);
        }
        let shared = self.shared(texts, encoder);
        let work: Vec<(Given<'_>, Option<Resource>)> = slots.into_iter().zip(resources).collect();
        let done = jobs.map(work, |(slot, resource)| shared.admit(&slot, resource));
        for done in done {
            self.take_done(done, encoder);
        }
    }

    fn shared<'t>(&self, texts: &'t Texts<'t>, encoder: &Encoder) -> Shared<'a, 't> {
        Shared {
            pipeline: self.pipeline,
            cx: self.cx,
            options: self.options,
            texts,
            keep_admitted: self.admitted.is_some(),
            keep_subjects: self.options.keep_subjects,
            format: encoder.format(),
        }
    }

    /// What the parallel part made of a slot: subjects, diagnostics, changes and
    /// `Admitted` records kept, the text written (or expanded), in input order.
    fn take_done(&mut self, done: Done, encoder: &mut Encoder) {
        match done {
            Done::Passthrough(text) => text.push(encoder),
            Done::Copied(own) => encoder.push_input(own.input, own.range, own.after_separator),
            Done::Resource(done) => {
                let ResourceDone {
                    resource,
                    subject,
                    before,
                    admission,
                    rendered,
                } = *done;
                self.subjects.extend(subject);
                match admission {
                    Some(admission) => self.take_admission(&resource, before, admission),
                    None => self.keep_unadmitted(&resource),
                }
                match rendered {
                    Some(text) => text.push(encoder),
                    None => self.emit(&resource, None, encoder),
                }
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

    /// A KRM `*List` kept whole: its items admitted in place, one after the other.
    fn admit_list(&mut self, slot: &Slot, texts: &Texts<'_>, encoder: &mut Encoder) {
        let mut resource = slot.resource(texts);
        let original = slot.source.as_ref().map(|_| resource.value.clone());
        let source = original.as_ref().zip(slot.source.as_deref());
        self.admit_list_items(&mut resource);
        write(encoder, &resource.value, source)
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
        if self.options.keep_subjects {
            self.subjects.push(subject_of(resource, self.cx));
        }
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
            self.subjects
                .extend(self.options.keep_subjects.then(|| Subject {
                    id: resource.id.clone(),
                    origin: resource.origin.clone(),
                    namespace: self.cx.effective_namespace(&resource).map(str::to_owned),
                    operation: self.cx.operation_of(&resource),
                }));
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

    /// Admits one resource on this thread (a List's items, generated resources).
    fn admit_one(&mut self, resource: &mut Resource) {
        self.record(resource);
        let before = self.admitted.is_some().then(|| resource.value.clone());
        let admission = self.pipeline.admit(resource, self.cx);
        annotate(self.options, resource, &admission);
        self.take_admission(resource, before, admission);
    }

    /// Keeps what admission of `resource` found: its diagnostics, its changes and, with
    /// `Options::keep_admitted`, the resource as read (`before`) and as admitted.
    fn take_admission(&mut self, resource: &Resource, before: Option<Value>, admission: Admission) {
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

    /// With an empty pipeline: the resource as read is the resource as admitted.
    fn keep_unadmitted(&mut self, resource: &Resource) {
        if let Some(admitted) = self.admitted.as_mut() {
            let at = self.diagnostics.len();
            admitted.push(Admitted {
                id: resource.id.clone(),
                origin: resource.origin.clone(),
                operation: self.cx.operation_of(resource),
                old: resource.old.clone(),
                before: resource.value.clone(),
                after: Some(resource.value.clone()),
                changes: Vec::new(),
                diagnostics: at..at,
            });
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

impl<'t> Shared<'_, 't> {
    /// The parallel part of one slot's admission: read (unless `resource`, read already
    /// and given its old object), admitted, rendered (or, left as it was read, its own
    /// text); a function of the slot alone.
    fn admit(&self, slot: &Slot, resource: Option<Resource>) -> Done {
        let Shared {
            pipeline,
            cx,
            options,
            texts,
            keep_admitted,
            keep_subjects,
            format,
        } = *self;
        // Untouched documents are written as their own text in a YAML stream; expansion
        // prints resultants, and other formats are written anew.
        let copies = format == Format::Yaml && pipeline.expander.is_none();
        let own = slot.own_text().filter(|_| copies);
        if slot.passthrough {
            if let Some(own) = own {
                return Done::Passthrough(Written::Own(own));
            }
            let value = slot.value(texts);
            let source = slot.source.as_deref().map(|text| (&value, text));
            return Done::Passthrough(Written::Rendered(render(format, &value, source)));
        }
        if let Some(own) = &own {
            if pipeline.is_empty() && resource.is_none() && !keep_subjects && !keep_admitted {
                return Done::Copied(own.clone());
            }
        }
        let (mut resource, subject) = match resource {
            Some(resource) => (resource, None),
            None => {
                let resource = slot.resource(texts);
                let subject = keep_subjects.then(|| subject_of(&resource, cx));
                (resource, subject)
            }
        };
        let original = slot.source.as_ref().map(|_| resource.value.clone());
        // Admission records every change, or flags it (`Admission::unrecorded`: pruning,
        // dropped fields), but an UPDATE's (fields carried over from the old object): a
        // document with its own text in an UPDATE is compared, after admission, with the
        // value it was read as. Debug builds (the tests) compare every document, and
        // insist that the records and flags tell the truth.
        let update = resource.old.is_some();
        let read_as = own
            .as_ref()
            .filter(|_| !pipeline.is_empty() && (update || cfg!(debug_assertions)))
            .map(|_| resource.value.clone());
        let mut before = None;
        let mut admission = None;
        if !pipeline.is_empty() {
            before = keep_admitted.then(|| resource.value.clone());
            let record = pipeline.admit(&mut resource, cx);
            annotate(options, &mut resource, &record);
            admission = Some(record);
        }
        let changed = admission
            .as_ref()
            .is_some_and(|a| !a.changes.is_empty() || a.unrecorded);
        if let (Some(read), false, false) = (&read_as, changed, update) {
            debug_assert!(
                *read == resource.value,
                "{} was changed without a change record or the unrecorded flag",
                resource.id
            );
        }
        let untouched = own.filter(|_| {
            !changed && (!update || read_as.as_ref().is_none_or(|read| *read == resource.value))
        });
        drop(read_as);
        let source = original.as_ref().zip(slot.source.as_deref());
        let rendered = pipeline.expander.is_none().then(|| match untouched {
            Some(own) => Written::Own(own),
            None => Written::Rendered(render(format, &resource.value, source)),
        });
        if rendered.is_some() && !keep_admitted {
            // Written, and wanted no more: freed here, on the thread that built it
            // (freeing a tree on another thread is slower, and serial).
            resource.value = Value::Null;
            resource.old = None;
        }
        Done::Resource(Box::new(ResourceDone {
            resource,
            subject,
            before,
            admission,
            rendered,
        }))
    }
}

/// The slots in input order, each moved out as admission takes it, their list shrunk as
/// it empties (shrinking a large allocation returns its tail to the system), so that the
/// slots and the output are not both held in full.
struct Shrinking(Vec<Slot>);

impl Shrinking {
    fn new(mut slots: Vec<Slot>) -> Shrinking {
        // Reversed, so each slot is taken from the end.
        slots.reverse();
        Shrinking(slots)
    }
}

impl Iterator for Shrinking {
    type Item = Slot;

    fn next(&mut self) -> Option<Slot> {
        let slot = self.0.pop()?;
        if self.0.capacity() > 2 * self.0.len() + 4096 {
            self.0.shrink_to_fit();
        }
        Some(slot)
    }
}

/// Who is admitted, from where, in which namespace and with which operation (the reports).
fn subject_of(resource: &Resource, cx: &Context) -> Subject {
    Subject {
        id: resource.id.clone(),
        origin: resource.origin.clone(),
        namespace: cx.effective_namespace(resource).map(str::to_owned),
        operation: cx.operation_of(resource),
    }
}

/// `--annotate`: the rules that changed the resource, in the order they first did.
fn annotate(options: &Options, resource: &mut Resource, admission: &Admission) {
    if !options.annotate || admission.changes.is_empty() {
        return;
    }
    let mut rules: Vec<&str> = Vec::new();
    for change in &admission.changes {
        if !rules.contains(&change.rule.as_str()) {
            rules.push(&change.rule);
        }
    }
    let rules = rules.join(", ");
    resource.set_annotation(CHANGED_BY_ANNOTATION, rules);
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
