//! Reading stdin: documents sorted into resources (kept compactly, in order) and
//! configuration (handed to the loader), with what resources teach about the cluster
//! (CRD scopes, Namespaces). A `ResourceList` is taken apart here.

use super::Options;
use crate::core::config::{classify, classify_document, is_crd, Loader, Source};
use crate::core::decode::{
    decode_split_in_parallel, decode_stream_in_parallel, normalised_text_in_parallel, split_text,
    ChunkText, Document,
};
use crate::core::diagnostic::Diagnostic;
use crate::core::engine::CrdDocument;
use crate::core::jobs::Jobs;
use crate::core::kinds::KindTable;
use crate::core::lists::{flatten_document, is_list};
use crate::core::origins::{declared_by_annotations, kpt_path, kustomize_origin, KUSTOMIZE_ORIGIN};
use crate::core::resource::{
    annotation, Declared, Identity, Origin, Resource, FUNCTION_CONFIG, STDIN,
};
use crate::io::resource_list;
use kadmit_yaml::compose::{compose_again, compose_with};
use kadmit_yaml::spans::ItemText;
use kadmit_yaml::Limits;
use serde_json::Value;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The text of each input of the stream (UTF-8, line ends LF), kept through admission:
/// a slot may hold its document as a span of it.
pub(super) type Texts<'i> = [Cow<'i, str>];

/// A document kept between reading and admission, as compact JSON or as its span of the
/// input, and nothing else (a parsed tree costs many times its text, and even a parsed
/// identity costs several times a small document: this keeps peak memory near the size of
/// the input).
pub(super) struct Slot {
    origin: SlotOrigin,
    held: Held,
    /// The document's group and kind, an index into [`Intake::kinds_seen`]; `None` only for
    /// a pass-through item that could not be identified (KRM mode keeps it to echo the
    /// input back unchanged on failure). Four bytes, where a parsed identity would cost
    /// several times a small document. Held plus one, so that `None` costs no more bytes.
    kind: Option<NonZeroU32>,
    pub passthrough: bool,
    /// A KRM `*List` item kept whole; its items are admitted one by one.
    pub list: bool,
    /// KRM mode: the item's own text, checked to read back to the item, so an item no
    /// rule changed is written back byte for byte (docs/yaml.md, "What kadmit writes").
    pub source: Option<Box<ItemText>>,
}

/// A slot's [`Origin`], in 40 bytes instead of 56: a stream of a million 60-byte
/// documents holds a million slots, and their size is most of its memory beside the input
/// (docs/security.md, "Memory"). Numbers past `u32::MAX` (four billion documents or lines,
/// far past the input limits) would saturate.
struct SlotOrigin {
    source: Arc<str>,
    index: u32,
    line: u32,
    list_item: Option<u32>,
    declared: Option<Arc<Declared>>,
}

impl SlotOrigin {
    fn of(origin: &Origin) -> SlotOrigin {
        let narrow = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        SlotOrigin {
            source: origin.source.clone(),
            index: narrow(origin.index),
            line: narrow(origin.line),
            list_item: origin.list_item.map(narrow),
            declared: origin.declared.clone(),
        }
    }

    fn origin(&self) -> Origin {
        Origin {
            source: self.source.clone(),
            index: self.index as usize,
            line: self.line as usize,
            list_item: self.list_item.map(|i| i as usize),
            declared: self.declared.clone(),
        }
    }
}

// What the slot's layout is for, checked where it is built.
const _: () = assert!(std::mem::size_of::<Slot>() <= 80);

/// How a slot holds its document.
enum Held {
    /// Compact JSON.
    Json(Box<str>),
    /// Its own text (the only document of its chunk): read again from the input when
    /// admitted and, when every reader reads it alike (`ChunkText::portable`), written back
    /// as it is when nothing changed it. No copy of the text is made, so such a document
    /// costs only the slot.
    Text(OwnSpan),
}

/// A document's own text as a slot holds it ([`Held::Text`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct OwnSpan {
    span: Span,
    /// Every YAML 1.1 and 1.2 reader reads the text alike (`ChunkText::portable`).
    portable: bool,
    /// The input has exactly `---` and a line break right before the text: looked at
    /// while the chunk was read (and in the cache), not when it is written.
    after_separator: bool,
}

/// Where a document's text is: `len` bytes from `start` of the input `input` ([`Texts`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Span {
    start: usize,
    input: u32,
    len: u32,
}

impl Span {
    /// The span of `own` in `input`'s text `base`, when `own` lies in it.
    fn of(own: &str, base: &str, input: u32) -> Option<Span> {
        let start = (own.as_ptr() as usize).checked_sub(base.as_ptr() as usize)?;
        let end = start.checked_add(own.len())?;
        (end <= base.len()).then_some(())?;
        Some(Span {
            start,
            input,
            len: u32::try_from(own.len()).ok()?,
        })
    }

    pub fn text<'t>(&self, texts: &'t Texts<'_>) -> &'t str {
        &texts[self.input as usize][self.start..self.start + self.len as usize]
    }

    fn range(&self) -> std::ops::Range<usize> {
        self.start..self.start + self.len as usize
    }
}

/// Where a document's own text lies: `range` of input number `input`.
#[derive(Debug, Clone)]
pub(super) struct OwnText {
    pub input: usize,
    pub range: std::ops::Range<usize>,
    /// The input has exactly `---` and a line break right before it.
    pub after_separator: bool,
}

impl Slot {
    fn of_value(value: &Value, kind: Option<u32>, origin: &Origin, passthrough: bool) -> Slot {
        Slot::of_held(Held::Json(compact(value)), kind, origin, passthrough)
    }

    fn of_held(held: Held, kind: Option<u32>, origin: &Origin, passthrough: bool) -> Slot {
        Slot {
            origin: SlotOrigin::of(origin),
            held,
            kind: kind.and_then(|kind| NonZeroU32::new(kind.wrapping_add(1))),
            passthrough,
            list: false,
            source: None,
        }
    }

    /// Where the document was read.
    pub fn origin(&self) -> Origin {
        self.origin.origin()
    }

    /// The size of the document as held (what admission windows are measured in).
    pub fn len(&self) -> usize {
        match &self.held {
            Held::Json(body) => body.len(),
            Held::Text(own) => own.span.len as usize,
        }
    }

    /// The document's own text, when it is held as one: what it is written back as when
    /// admission leaves it as it was read (docs/yaml.md, "Untouched documents").
    pub fn own_text(&self) -> Option<OwnText> {
        match &self.held {
            Held::Text(own) if own.portable => Some(OwnText {
                input: own.span.input as usize,
                range: own.span.range(),
                after_separator: own.after_separator,
            }),
            _ => None,
        }
    }

    pub fn value(&self, texts: &Texts<'_>) -> Value {
        match &self.held {
            Held::Json(body) => read_compact(body),
            Held::Text(own) => read_own_text(own.span.text(texts)),
        }
    }

    pub fn resource(&self, texts: &Texts<'_>) -> Resource {
        let value = self.value(texts);
        Resource {
            id: Identity::of(&value).expect("only identified documents are admitted"),
            value,
            origin: self.origin(),
            old: None,
        }
    }
}

/// Everything read, sorted into resources and configuration.
pub(super) struct Intake<'i> {
    /// The input was a `ResourceList`.
    pub krm: bool,
    pub slots: Vec<Slot>,
    /// Each input's text, kept while slots may point into it.
    pub texts: Vec<Cow<'i, str>>,
    /// Every (group, kind) a slot holds, once; slots point into it.
    kinds_seen: Vec<(String, String)>,
    /// Group, then kind, to the index in `kinds_seen` (two levels, so a lookup borrows
    /// the identity's strings instead of building a key).
    kind_index: HashMap<String, HashMap<String, u32>>,
    pub loader: Loader,
    pub kinds: KindTable,
    pub namespaces: BTreeMap<String, Value>,
    /// CustomResourceDefinitions seen in the stream, and those of `--crd`.
    crds: Vec<CrdDocument>,
    pub diagnostics: Vec<Diagnostic>,
    /// How many documents the input held (0 when it could not be read at all).
    pub documents: usize,
    /// A `ResourceList` read as the first document, kept until it is known whether it
    /// is the only one (a KRM call) or not (a resource of the stream).
    pending_list: Option<Document>,
    /// The `ResourceList`'s functionConfig, echoed back in the answer.
    pub function_config: Option<Value>,
    keep_config: bool,
    config_root: PathBuf,
    limits: Limits,
    /// With `--old`: the digest of each plain stream document's own text, with the
    /// resource's identity, so an old object with the same text is known without being
    /// read twice ([`super::old`]).
    pub known_texts: Option<HashMap<TextDigest, Identity>>,
    /// The digest of the document being accepted, while it is.
    pending_text: Option<TextDigest>,
    /// The span of the document being accepted, while it is, and whether its text may be
    /// written back.
    pending_span: Option<OwnSpan>,
    /// The threads decoding and admission are spread over (`--jobs`).
    pub jobs: Arc<Jobs>,
}

/// What decoding makes of a document, on the thread that decoded it.
enum Decoded {
    /// A resource to admit and nothing else (no List, `ResourceList`, configuration, CRD
    /// or Namespace: nothing the run learns from), ready to be held: its tree is dropped
    /// on the thread that built it.
    Resource {
        id: Identity,
        held: Held,
        /// The file its annotations say it comes from.
        declared: Option<Declared>,
        /// With `--old`: the digest of its own text.
        digest: Option<TextDigest>,
    },
    /// Anything else, classified on the calling thread as it is read.
    Other {
        value: Value,
        digest: Option<TextDigest>,
        span: Option<OwnSpan>,
    },
}

impl Decoded {
    /// `span`: where the document's own text is, and whether it may be written back.
    fn of(value: Value, digest: Option<TextDigest>, span: Option<OwnSpan>) -> Decoded {
        if is_list(&value) || resource_list::is_resource_list(&value) {
            return Decoded::Other {
                value,
                digest,
                span: None,
            };
        }
        let Ok(id) = Identity::of(&value) else {
            return Decoded::Other {
                value,
                digest,
                span,
            };
        };
        // Classified by identity and value: a `Resource` would need an origin, and the
        // run's one name cloned and dropped here on every thread was a cache line they
        // all wrote to.
        let learnt = is_crd(&id) || (id.group.is_empty() && id.kind == "Namespace");
        if learnt || classify_document(&id, &value).is_some() {
            return Decoded::Other {
                value,
                digest,
                span,
            };
        }
        Decoded::Resource {
            held: held(&value, span),
            declared: declared_by_annotations(&value),
            id,
            digest,
        }
    }
}

/// How a slot holds a document: as its own text when it has a span (the tree is dropped),
/// as compact JSON otherwise.
fn held(value: &Value, span: Option<OwnSpan>) -> Held {
    match span {
        Some(own) => Held::Text(own),
        None => Held::Json(compact(value)),
    }
}

/// A value as the compact JSON a slot holds.
fn compact(value: &Value) -> Box<str> {
    serde_json::to_string(value)
        .expect("a Value always serializes")
        .into_boxed_str()
}

/// The SHA-256 of a document's text.
pub(super) type TextDigest = [u8; 32];

pub(super) fn text_digest(text: &str) -> TextDigest {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes()).into()
}

impl<'i> Intake<'i> {
    pub fn new(options: &Options, jobs: Arc<Jobs>) -> Intake<'i> {
        Intake {
            krm: false,
            slots: Vec::new(),
            texts: Vec::new(),
            kinds_seen: Vec::new(),
            kind_index: HashMap::new(),
            loader: Loader::new(options.allow_paths_outside_root)
                .with_limits(options.limits)
                .with_jobs(jobs.clone()),
            kinds: KindTable::default(),
            namespaces: BTreeMap::new(),
            crds: Vec::new(),
            diagnostics: Vec::new(),
            documents: 0,
            pending_list: None,
            function_config: None,
            keep_config: options.keep_config,
            config_root: options.config_root.clone(),
            limits: options.limits,
            known_texts: (!options.old_inputs.is_empty()).then(HashMap::new),
            pending_text: None,
            pending_span: None,
            jobs,
        }
    }

    /// A slot for an identified resource; `span`: where its own text is, and whether it
    /// may be written back.
    fn slot(&mut self, resource: &Resource, passthrough: bool, span: Option<OwnSpan>) -> Slot {
        let kind = self.kind_index(&resource.id);
        let held = held(&resource.value, span);
        Slot::of_held(held, Some(kind), &resource.origin, passthrough)
    }

    /// The index of `id`'s group and kind in [`Intake::kinds_seen`], added when new.
    fn kind_index(&mut self, id: &Identity) -> u32 {
        let kinds = match self.kind_index.get_mut(id.group.as_str()) {
            Some(kinds) => kinds,
            None => self.kind_index.entry(id.group.clone()).or_default(),
        };
        if let Some(&kind) = kinds.get(id.kind.as_str()) {
            return kind;
        }
        let next = self.kinds_seen.len() as u32;
        kinds.insert(id.kind.clone(), next);
        self.kinds_seen.push((id.group.clone(), id.kind.clone()));
        next
    }

    /// The group and kind of a slot's document, `None` for one that was not identified.
    pub fn group_kind(&self, slot: &Slot) -> Option<(&str, &str)> {
        self.kind_named(slot.kind?)
    }

    fn kind_named(&self, index: NonZeroU32) -> Option<(&str, &str)> {
        let (group, kind) = self.kinds_seen.get(index.get() as usize - 1)?;
        Some((group, kind))
    }

    /// The kinds of the stream's slots, by name. Collected by index first: a name copied
    /// per slot was 100,000 allocations on the calling thread for a large stream.
    pub fn stream_kinds(&self) -> BTreeSet<String> {
        let indices: BTreeSet<NonZeroU32> =
            self.slots.iter().filter_map(|slot| slot.kind).collect();
        indices
            .into_iter()
            .filter_map(|index| self.kind_named(index).map(|(_, kind)| kind.to_owned()))
            .collect()
    }

    /// Reads stdin: a lone `ResourceList` makes this a KRM call, anything else is a stream.
    pub fn read_stdin(&mut self, stdin: Cow<'i, [u8]>) {
        self.read_input(STDIN, stdin, true);
        self.finish();
    }

    /// Reads the inputs `-f` names, in order (docs/cli.md, "Input files"): `-` is stdin, a
    /// directory its `*.yaml`, `*.yml` and `*.json` files in name order (its
    /// subdirectories too when `recursive`), anything else a file, whatever its name.
    /// Every input is the resource stream, with the stream's trust. Returns how many
    /// bytes were read.
    pub fn read_files(&mut self, inputs: &[PathBuf], recursive: bool, stdin: &'i [u8]) -> usize {
        let files = manifest_files(inputs, recursive, "-f", &mut self.diagnostics);
        let mut read = 0;
        let mut stdin_read = false;
        let last = files.len().saturating_sub(1);
        for (i, file) in files.iter().enumerate() {
            if file.as_os_str() == "-" {
                if std::mem::replace(&mut stdin_read, true) {
                    self.diagnostics.push(Diagnostic::input(
                        "-f - is given more than once: stdin can be read only once",
                    ));
                    continue;
                }
                self.read_input(STDIN, Cow::Borrowed(stdin), i == last);
                read += stdin.len();
                continue;
            }
            match std::fs::read(file) {
                Ok(bytes) => {
                    read += bytes.len();
                    self.read_input(&file.display().to_string(), Cow::Owned(bytes), i == last);
                }
                Err(e) => self.diagnostics.push(Diagnostic::input(format!(
                    "cannot read -f {}: {e}",
                    file.display()
                ))),
            }
        }
        self.finish();
        read
    }

    /// Reads one input of the stream. `last`: no input follows, so a `ResourceList` read
    /// as the first and only document so far is a KRM call.
    fn read_input(&mut self, name: &str, bytes: Cow<'i, [u8]>, last: bool) {
        let before = self.documents;
        match input_text(bytes, &self.jobs) {
            Ok(text) => {
                // Kept, so that slots may hold their document as a span of it.
                self.texts.push(text);
                let input = self.texts.len() - 1;
                self.read_documents(name, input);
            }
            Err(bytes) => self.read_unreadable(name, &bytes),
        }
        if !last {
            return;
        }
        if let Some(list) = self.pending_list.take() {
            self.krm = true;
            self.accept_resource_list(list);
            if before == 0 {
                // Taken out while read: a KRM call's slots are the list's items, held as
                // compact JSON, so none points into it meanwhile.
                if let Some(last) = self.texts.last_mut() {
                    let text = std::mem::take(last);
                    self.attach_item_sources(&text);
                    *self.texts.last_mut().expect("just taken") = text;
                }
            }
        }
    }

    /// After the last input: a `ResourceList` still pending is a KRM call; what the
    /// configuration teaches about the cluster is learnt.
    fn finish(&mut self) {
        if let Some(list) = self.pending_list.take() {
            self.krm = true;
            self.accept_resource_list(list);
        }
        for item in &self.loader.items {
            learn_context(&item.resource, &mut self.kinds, &mut self.namespaces);
        }
    }

    /// KRM mode: each item's own lines, when they read back to the item exactly, go with
    /// its slot (one slot per item, in order, until claims and generation change that).
    fn attach_item_sources(&mut self, text: &str) {
        let Some(items) = kadmit_yaml::spans::sequence_items(text, "items") else {
            return;
        };
        if items.len() != self.slots.len() {
            return;
        }
        for (slot, item) in self.slots.iter_mut().zip(items) {
            let Some(mut item) = item else { continue };
            if verify_item_text(&mut item, &slot.value(&self.texts), &self.limits) {
                slot.source = Some(Box::new(item));
            }
        }
    }

    /// Decodes one input over the run's threads; each document is classified here, on
    /// this thread, in input order (what it teaches — CRDs, Namespaces, a pending
    /// `ResourceList` — applies to the documents after it). A plain resource was made
    /// ready on its decoding thread ([`Decoded::Resource`]).
    fn read_documents(&mut self, name: &str, input: usize) {
        let source: Arc<str> = Arc::from(name);
        let limits = self.limits;
        let digests = self.known_texts.is_some();
        let jobs = self.jobs.clone();
        // Moved out while read, so documents can be accepted meanwhile.
        let base = std::mem::take(&mut self.texts[input]);
        let index = u32::try_from(input).expect("fewer than 2^32 inputs");
        let prepare = |own: Option<ChunkText<'_>>, value: Value| {
            let digest = own.filter(|_| digests).map(|own| text_digest(own.text));
            let span = own.filter(|own| own.alone).and_then(|own| {
                let span = Span::of(own.text, &base, index)?;
                let after_separator = base[..span.start].ends_with("---\n");
                Some(OwnSpan {
                    span,
                    portable: own.portable,
                    after_separator,
                })
            });
            Decoded::of(value, digest, span)
        };
        self.decode_into_slots(Ok(&base), &source, &limits, &jobs, prepare);
        self.texts[input] = base;
    }

    /// An input that is not UTF-8: read only for the problem it is.
    fn read_unreadable(&mut self, name: &str, bytes: &[u8]) {
        let source: Arc<str> = Arc::from(name);
        let limits = self.limits;
        let jobs = self.jobs.clone();
        let prepare = |_: Option<ChunkText<'_>>, value: Value| Decoded::of(value, None, None);
        self.decode_into_slots(Err(bytes), &source, &limits, &jobs, prepare);
    }

    /// `input`: the input's text ([`input_text`]), or its bytes when they are not UTF-8.
    fn decode_into_slots(
        &mut self,
        input: Result<&str, &[u8]>,
        source: &Arc<str>,
        limits: &Limits,
        jobs: &Jobs,
        prepare: impl Fn(Option<ChunkText<'_>>, Value) -> Decoded + Sync,
    ) {
        let split = input.map(|text| split_text(text, jobs));
        if let Ok(split) = &split {
            // Each chunk of the input may become a slot: sized once for a single stream
            // (an empty list grows to exactly this), amortised over many `-f` files.
            self.slots.reserve(split.chunks());
        }
        let sink = |doc: Result<(Origin, Decoded), Diagnostic>| {
            let (origin, decoded) = match doc {
                Ok(doc) => doc,
                Err(problem) => return self.diagnostics.push(problem),
            };
            self.documents += 1;
            match decoded {
                Decoded::Other { value, .. }
                    if resource_list::is_resource_list(&value) && self.documents == 1 =>
                {
                    self.pending_list = Some(Document { value, origin });
                }
                decoded => {
                    if let Some(list) = self.pending_list.take() {
                        self.accept(list);
                    }
                    self.accept_decoded(decoded, origin);
                }
            }
        };
        match split {
            Ok(split) => decode_split_in_parallel(split, source, limits, jobs, prepare, sink),
            Err(bytes) => decode_stream_in_parallel(bytes, source, limits, jobs, prepare, sink),
        }
    }

    fn accept_decoded(&mut self, decoded: Decoded, mut origin: Origin) {
        match decoded {
            Decoded::Resource {
                id,
                held,
                declared,
                digest,
            } => {
                if let Some(declared) = declared {
                    origin.declared = Some(Arc::new(declared));
                }
                let kind = self.kind_index(&id);
                self.slots
                    .push(Slot::of_held(held, Some(kind), &origin, false));
                if let (Some(known), Some(digest), false) =
                    (self.known_texts.as_mut(), digest, self.krm)
                {
                    known.insert(digest, id);
                }
            }
            Decoded::Other {
                value,
                digest,
                span,
            } => {
                // Only a document that is one resource is known by its text, or written
                // back as it.
                self.pending_text = digest.filter(|_| !is_list(&value));
                self.pending_span = span.filter(|_| !is_list(&value));
                self.accept(Document { value, origin });
                self.pending_text = None;
                self.pending_span = None;
            }
        }
    }

    fn accept(&mut self, doc: Document) {
        if self.krm && is_list(&doc.value) {
            // A List is one file entry to kpt: keep it whole and admit its items in place.
            return self.accept_krm_list(doc);
        }
        flatten_document(doc, &mut |d| self.accept_one(d));
    }

    /// Reports a document without identity; in KRM mode it is still echoed on failure.
    fn reject_unidentified(&mut self, doc: &Document, message: String) {
        self.diagnostics
            .push(Diagnostic::input(message).with_origin(&doc.origin));
        if self.krm {
            self.slots
                .push(Slot::of_value(&doc.value, None, &doc.origin, true));
        }
    }

    fn accept_krm_list(&mut self, doc: Document) {
        let id = match Identity::of(&doc.value) {
            Ok(id) => id,
            Err(message) => return self.reject_unidentified(&doc, message),
        };
        let list = Resource {
            value: doc.value,
            id,
            origin: doc.origin,
            old: None,
        };
        if let Some(Value::Array(items)) = list.value.get("items") {
            for (i, item) in items.iter().enumerate() {
                let origin = Origin {
                    list_item: Some(i),
                    ..list.origin.clone()
                };
                match Resource::new(item.clone(), origin.clone()) {
                    Ok(resource) => self.learn(&resource),
                    Err(message) => self
                        .diagnostics
                        .push(Diagnostic::input(message).with_origin(&origin)),
                }
            }
        }
        let mut slot = self.slot(&list, false, None);
        slot.list = true;
        self.slots.push(slot);
    }

    fn accept_one(&mut self, mut doc: Document) {
        // A plain stream's document may say which file it comes from (a KRM item's
        // origin was read with the item).
        if !self.krm {
            if let Some(declared) = declared_by_annotations(&doc.value) {
                doc.origin.declared = Some(Arc::new(declared));
            }
        }
        let resource = match Identity::of(&doc.value) {
            Ok(id) => Resource {
                value: doc.value,
                id,
                origin: doc.origin,
                old: None,
            },
            Err(message) => return self.reject_unidentified(&doc, message),
        };
        self.learn(&resource);
        if classify(&resource).is_some() {
            let base = base_dir_of(&resource, &self.config_root);
            if self.krm || self.keep_config {
                let span = self.pending_span.take();
                let slot = self.slot(&resource, true, span);
                self.slots.push(slot);
            }
            let root = self.config_root.clone();
            self.loader.add(resource, Source::Stream, &base, &root);
        } else {
            let span = self.pending_span.take();
            let slot = self.slot(&resource, false, span);
            self.slots.push(slot);
            if let (Some(known), Some(digest), false) = (
                self.known_texts.as_mut(),
                self.pending_text.take(),
                self.krm,
            ) {
                known.insert(digest, resource.id.clone());
            }
        }
    }

    /// Moves the stream documents of a kind a generator defines into configuration: they
    /// are virtual resources, generated from in `generate` and consumed in `transform`.
    /// Returns the documents claimed, with their origin.
    pub fn claim_virtual(
        &mut self,
        mut is_virtual: impl FnMut(&str, &str) -> bool,
    ) -> Vec<(Identity, Origin)> {
        // In place: a copy of the slots would hold them twice at once.
        let mut claimed_documents = Vec::new();
        let mut removed = Vec::new();
        for at in 0..self.slots.len() {
            let slot = &self.slots[at];
            let claimed = match self.group_kind(slot) {
                Some((group, kind)) if !slot.passthrough && !slot.list && !group.is_empty() => {
                    is_virtual(group, kind)
                }
                _ => false,
            };
            if !claimed {
                continue;
            }
            let resource = slot.resource(&self.texts);
            claimed_documents.push((resource.id.clone(), resource.origin.clone()));
            if self.keep_config {
                self.slots[at] = self.slot(&resource, true, None);
            } else {
                removed.push(at);
            }
            let base = base_dir_of(&resource, &self.config_root);
            let root = self.config_root.clone();
            self.loader.add_virtual(resource, &base, &root);
        }
        if !removed.is_empty() {
            let mut at = 0;
            let mut removed = removed.into_iter().peekable();
            self.slots.retain(|_| {
                let gone = removed.next_if_eq(&at).is_some();
                at += 1;
                !gone
            });
        }
        claimed_documents
    }

    /// CRDs extend the scope table; Namespaces are kept for namespace selectors.
    fn learn(&mut self, resource: &Resource) {
        learn_context(resource, &mut self.kinds, &mut self.namespaces);
        if is_crd(&resource.id) {
            // A stream CRD is also written out: the engines get a copy.
            self.crds.push(CrdDocument::of(resource.clone()));
        }
    }

    /// KRM mode: items are resources (configuration items pass through untouched), the
    /// functionConfig is configuration.
    fn accept_resource_list(&mut self, list: Document) {
        let origin = list.origin.clone();
        let rl = match resource_list::unwrap(list.value) {
            Ok(rl) => rl,
            Err(message) => {
                return self
                    .diagnostics
                    .push(Diagnostic::input(message).with_origin(&origin))
            }
        };
        for (i, item) in rl.items.into_iter().enumerate() {
            let item_origin = krm_item_origin(&item, i, &origin);
            self.accept(Document {
                value: item,
                origin: item_origin,
            });
        }
        if let Some(config) = rl.function_config {
            self.accept_function_config(&config);
            self.function_config = Some(config);
        }
    }

    fn accept_function_config(&mut self, config: &Value) {
        let origin = Origin {
            source: Arc::from(FUNCTION_CONFIG),
            index: 0,
            line: 0,
            list_item: None,
            declared: None,
        };
        let resource = match Resource::new(config.clone(), origin.clone()) {
            Ok(resource) => resource,
            Err(message) => {
                return self.diagnostics.push(
                    Diagnostic::input(format!("functionConfig: {message}")).with_origin(&origin),
                )
            }
        };
        if is_function_input(&resource.id) {
            let has_data = config
                .get("data")
                .and_then(Value::as_object)
                .is_some_and(|m| !m.is_empty());
            if has_data {
                self.diagnostics.push(
                    Diagnostic::warning(format!(
                        "functionConfig ConfigMap {} is ignored: kadmit reads its configuration from rules, --config and PolicySets",
                        resource.id.name
                    ))
                    .with_origin(&origin),
                );
            }
            return;
        }
        // kustomize also hands a generator's functionConfig over as an item: the
        // functionConfig stands for both.
        let copy = self
            .loader
            .items
            .iter_mut()
            .find(|item| item.source == Source::Stream && item.resource.id == resource.id);
        match copy {
            Some(item) => item.source = Source::FunctionConfig,
            None => {
                let root = self.config_root.clone();
                self.loader
                    .add(resource, Source::FunctionConfig, &root, &root);
            }
        }
    }

    /// `--crd PATH`: every CustomResourceDefinition in the file or directory (other
    /// documents are ignored, as kubectl-validate ignores them); used, never written out.
    pub fn load_crd_path(&mut self, path: &Path, allow_outside_root: bool, limits: Limits) {
        let mut loader = Loader::for_crds(allow_outside_root)
            .with_limits(limits)
            .with_jobs(self.jobs.clone());
        loader.load_config_path(path);
        self.diagnostics.append(&mut loader.diagnostics);
        for item in loader.items {
            if is_crd(&item.resource.id) {
                learn_context(&item.resource, &mut self.kinds, &mut self.namespaces);
                self.crds.push(CrdDocument::of(item.resource));
            }
        }
    }

    /// The objects of `kinds` ((group, kind)) for stages to look up (admission policy
    /// params): documents of `--config` and `PolicySet`s that configure no engine, then
    /// the stream's resources as they were read (before admission), in input order.
    pub fn objects_of(&self, kinds: &[(String, String)]) -> BTreeMap<(String, String), Vec<Value>> {
        let mut objects: BTreeMap<(String, String), Vec<Value>> = BTreeMap::new();
        if kinds.is_empty() {
            return objects;
        }
        let wanted = |group: &str, kind: &str| kinds.iter().any(|(g, k)| g == group && k == kind);
        for item in &self.loader.items {
            let id = &item.resource.id;
            if item.family.is_none() && wanted(&id.group, &id.kind) {
                let key = (id.group.clone(), id.kind.clone());
                objects
                    .entry(key)
                    .or_default()
                    .push(item.resource.value.clone());
            }
        }
        for slot in self.slots.iter().filter(|slot| !slot.list) {
            if let Some((group, kind)) = self.group_kind(slot).filter(|(g, k)| wanted(g, k)) {
                let key = (group.to_owned(), kind.to_owned());
                objects
                    .entry(key)
                    .or_default()
                    .push(slot.value(&self.texts));
            }
        }
        objects
    }

    /// Every CustomResourceDefinition of the run (`--crd`, the stream, then `--config`),
    /// handed over to compile: those of `--crd` and the stream are not copied again; those
    /// of `--config` stay configuration items too, so the engines get a copy.
    pub fn take_crds(&mut self) -> Vec<CrdDocument> {
        let mut crds = std::mem::take(&mut self.crds);
        crds.extend(
            self.loader
                .items
                .iter()
                .filter(|item| is_crd(&item.resource.id))
                .map(|item| CrdDocument::of(item.resource.clone())),
        );
        crds
    }
}

fn learn_context(
    resource: &Resource,
    kinds: &mut KindTable,
    namespaces: &mut BTreeMap<String, Value>,
) {
    if is_crd(&resource.id) {
        kinds.add_crd(resource);
    } else if resource.id.group.is_empty() && resource.id.kind == "Namespace" {
        namespaces.insert(resource.id.name.clone(), resource.value.clone());
    }
}

/// A kpt item's relative paths resolve against the directory of the file it came from.
fn base_dir_of(resource: &Resource, root: &Path) -> PathBuf {
    let path = resource
        .annotation("internal.config.kubernetes.io/path")
        .or_else(|| resource.annotation("config.kubernetes.io/path"));
    match path.and_then(|p| Path::new(p).parent()) {
        Some(dir) => root.join(dir),
        None => root.to_path_buf(),
    }
}

/// A ConfigMap functionConfig (kpt's `function-input` from `-- k=v`, or `--fn-config` with a
/// ConfigMap) carries key/value settings, not rules or generator input.
fn is_function_input(id: &Identity) -> bool {
    id.group.is_empty() && id.kind == "ConfigMap"
}

/// kpt and kustomize say where each item lives in the path/index annotations; without
/// them, kustomize's origin annotation names the file the item was written in, and the
/// item's position in the list locates it.
fn krm_item_origin(item: &Value, position: usize, list: &Origin) -> Origin {
    match kpt_path(item) {
        Some((path, index)) => Origin {
            source: Arc::from(path),
            index: index.unwrap_or(0),
            line: 0,
            list_item: None,
            declared: None,
        },
        None => Origin {
            list_item: Some(position),
            declared: annotation(item, KUSTOMIZE_ORIGIN)
                .and_then(kustomize_origin)
                .map(Arc::new),
            ..list.clone()
        },
    }
}

/// The files `flag` (`-f`, `--old`) names, in order: `-` (stdin) and files as given, a
/// directory's `*.yaml`, `*.yml` and `*.json` files in name order (its subdirectories
/// too when `recursive`).
pub(super) fn manifest_files(
    inputs: &[PathBuf],
    recursive: bool,
    flag: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    for input in inputs {
        if input.as_os_str() == "-" || !input.is_dir() {
            files.push(input.clone());
            continue;
        }
        let walk = walkdir::WalkDir::new(input)
            .follow_links(true)
            .sort_by_file_name()
            .max_depth(if recursive { usize::MAX } else { 1 });
        for entry in walk {
            match entry {
                Ok(entry) if entry.file_type().is_file() && is_manifest(entry.path()) => {
                    files.push(entry.into_path())
                }
                Ok(_) => {}
                Err(e) => diagnostics.push(Diagnostic::input(format!(
                    "cannot read {flag} {}: {e}",
                    input.display()
                ))),
            }
        }
    }
    files
}

/// What `-f DIR` reads: kubectl's manifest extensions.
fn is_manifest(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
}

/// Whether `item`'s text reads back to `value` (an alias to another item's anchor, a tag
/// or a document marker would not); keeps only the keys whose own lines read back to
/// their values.
fn verify_item_text(item: &mut ItemText, value: &Value, limits: &Limits) -> bool {
    let reads_back = |text: &str, expected: Value| matches!(compose_with(text, limits).as_deref(), Ok([doc]) if doc.value == expected);
    if !reads_back(&item.text, Value::Array(vec![value.clone()])) {
        return false;
    }
    let Value::Object(map) = value else {
        item.keys.clear();
        return true;
    };
    let keys_read_back = item.keys.iter().all(|key| {
        let Some(expected) = map.get(&key.name) else {
            return false;
        };
        let lines = &item.text[key.lines.clone()];
        let shifted: String = lines
            .lines()
            .map(|l| {
                let l = l.strip_prefix("- ").unwrap_or(l);
                format!("{}\n", l.strip_prefix("  ").unwrap_or(l.trim_start()))
            })
            .collect();
        let mut one = serde_json::Map::new();
        one.insert(key.name.clone(), expected.clone());
        reads_back(&shifted, Value::Object(one))
    });
    if !keys_read_back || item.keys.len() != map.len() {
        item.keys.clear();
    }
    true
}

/// An input's text as documents are read from it and slots point into it: UTF-8, without
/// a byte-order mark, line ends LF ([`stream_text`]); the bytes back when not UTF-8.
fn input_text<'b>(bytes: Cow<'b, [u8]>, jobs: &Jobs) -> Result<Cow<'b, str>, Cow<'b, [u8]>> {
    match bytes {
        Cow::Borrowed(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => Ok(normalised_text_in_parallel(text, jobs)),
            Err(_) => Err(Cow::Borrowed(bytes)),
        },
        Cow::Owned(bytes) => match String::from_utf8(bytes) {
            Ok(text) => {
                let converted = match normalised_text_in_parallel(&text, jobs) {
                    Cow::Borrowed(same) if same.len() == text.len() => None,
                    converted => Some(converted.into_owned()),
                };
                Ok(Cow::Owned(converted.unwrap_or(text)))
            }
            Err(e) => Err(Cow::Owned(e.into_bytes())),
        },
    }
}

/// A document held as its own text, read again. It was read once already, within the
/// run's limits, to one document: no limit is checked again.
fn read_own_text(text: &str) -> Value {
    match compose_again(text).map(|mut docs| docs.pop()) {
        Ok(Some(doc)) => doc.value,
        _ => unreachable!("a slot's own text was read to one document before"),
    }
}

/// A document held as compact JSON between intake and admission, read back (no recursion
/// limit: the node limits were enforced when the YAML was read).
pub(super) fn read_compact(body: &str) -> Value {
    let mut de = serde_json::Deserializer::from_str(body);
    de.disable_recursion_limit();
    serde::Deserialize::deserialize(&mut de).expect("kadmit wrote this JSON itself")
}
