//! One invocation: read input and configuration, compile the engines, admit every
//! resource, and produce the output stream, the diagnostics and the exit code.

use crate::config::{is_crd, Loader, Source};
use crate::diagnostic::{exit_code, has_errors, Diagnostic, Severity};
use crate::engines;
use crate::io::decode::{decode_all, decode_stream, Document};
use crate::io::encode::{Encoder, Format};
use crate::io::lists::{flatten_document, is_list};
use crate::io::resource_list;
use crate::pipeline::{Change, Context, Operation, Pipeline};
use crate::resource::{
    annotation, Identity, Origin, Resource, FUNCTION_ANNOTATION, FUNCTION_CONFIG, LOCAL_CONFIG,
    STDIN,
};
use crate::scope::{Scope, ScopeTable};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The annotation `--annotate` writes: the rules that changed a resource.
pub const CHANGED_BY_ANNOTATION: &str = "kadmit.dev/changed-by";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Generate,
    Transform,
    /// No subcommand: a KRM function call (stdin must be a ResourceList); generate when
    /// every item is configuration, transform otherwise.
    Krm,
}

#[derive(Debug, Clone)]
pub struct Options {
    pub mode: Mode,
    /// `None`: a YAML stream, or a ResourceList when the input was one.
    pub format: Option<Format>,
    pub config_paths: Vec<PathBuf>,
    /// The kustomize legacy plugin configuration file (argv[1]).
    pub plugin_config: Option<PathBuf>,
    /// Where relative paths in stdin/plugin configuration resolve, and may not escape.
    pub config_root: PathBuf,
    pub keep_config: bool,
    pub namespace: String,
    pub operation: Operation,
    pub annotate: bool,
    pub allow_paths_outside_root: bool,
    pub cluster_modrules_namespace: String,
    pub strict: bool,
}

impl Options {
    /// The defaults of `kadmit transform`/`generate` with no flags, relative paths
    /// resolving against the working directory.
    pub fn new(mode: Mode) -> Options {
        Options {
            mode,
            format: None,
            config_paths: Vec::new(),
            plugin_config: None,
            config_root: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            keep_config: false,
            namespace: "default".into(),
            operation: Operation::Create,
            annotate: false,
            allow_paths_outside_root: false,
            cluster_modrules_namespace: "kubemod-system".into(),
            strict: false,
        }
    }
}

pub struct Outcome {
    pub stdout: String,
    pub diagnostics: Vec<Diagnostic>,
    pub exit_code: i32,
    /// Per resource: what changed it.
    pub changes: Vec<(Identity, Vec<Change>)>,
}

/// A document kept between reading and admission, as compact JSON (a parsed tree costs
/// many times its text; this keeps peak memory near the size of the input).
struct Slot {
    /// `None` only for a pass-through item that could not be identified (KRM mode keeps it
    /// to echo the input back unchanged on failure).
    id: Option<Identity>,
    origin: Origin,
    body: Box<str>,
    passthrough: bool,
    /// A KRM `*List` item kept whole; its items are admitted one by one.
    list: bool,
}

impl Slot {
    fn new(resource: &Resource, passthrough: bool) -> Slot {
        Slot::of_value(
            &resource.value,
            Some(resource.id.clone()),
            &resource.origin,
            passthrough,
        )
    }

    fn of_value(value: &Value, id: Option<Identity>, origin: &Origin, passthrough: bool) -> Slot {
        Slot {
            id,
            origin: origin.clone(),
            body: serde_json::to_string(value)
                .expect("a Value always serializes")
                .into_boxed_str(),
            passthrough,
            list: false,
        }
    }

    fn value(&self) -> Value {
        let mut de = serde_json::Deserializer::from_str(&self.body);
        de.disable_recursion_limit();
        serde::Deserialize::deserialize(&mut de).expect("kadmit wrote this JSON itself")
    }

    fn resource(&self) -> Resource {
        Resource {
            value: self.value(),
            id: self
                .id
                .clone()
                .expect("only pass-through slots lack an identity"),
            origin: self.origin.clone(),
        }
    }
}

/// Everything read from stdin, sorted into resources and configuration.
struct Intake {
    krm: bool,
    keep_config: bool,
    slots: Vec<Slot>,
    loader: Loader,
    scopes: ScopeTable,
    namespaces: BTreeMap<String, Value>,
    /// CustomResourceDefinitions seen in the stream.
    crds: Vec<Value>,
    diagnostics: Vec<Diagnostic>,
    options: Options,
}

impl Intake {
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
            origin: doc.origin.clone(),
        };
        {
            {
                if let Some(Value::Array(items)) = list.value.get("items") {
                    for (i, item) in items.iter().enumerate() {
                        let origin = Origin {
                            list_item: Some(i),
                            ..doc.origin.clone()
                        };
                        match Resource::new(item.clone(), origin.clone()) {
                            Ok(resource) => self.learn(&resource),
                            Err(message) => self
                                .diagnostics
                                .push(Diagnostic::input(message).with_origin(&origin)),
                        }
                    }
                }
                let mut slot = Slot::new(&list, false);
                slot.list = true;
                self.slots.push(slot);
            }
        }
    }

    fn accept_one(&mut self, doc: Document) {
        let resource = match Identity::of(&doc.value) {
            Ok(id) => Resource {
                value: doc.value,
                id,
                origin: doc.origin,
            },
            Err(message) => return self.reject_unidentified(&doc, message),
        };
        self.learn(&resource);
        if crate::config::classify(&resource).is_some() {
            let root = self.options.config_root.clone();
            let base = base_dir_of(&resource, &root);
            if self.krm || self.keep_config {
                self.slots.push(Slot::new(&resource, true));
            }
            self.loader.add(resource, Source::Stream, &base, &root);
        } else {
            self.slots.push(Slot::new(&resource, false));
        }
    }

    /// CRDs extend the scope table; Namespaces are kept for namespace selectors.
    fn learn(&mut self, resource: &Resource) {
        learn_context(resource, &mut self.scopes, &mut self.namespaces);
        if is_crd(&resource.id) {
            self.crds.push(resource.value.clone());
        }
    }
}

fn learn_context(
    resource: &Resource,
    scopes: &mut ScopeTable,
    namespaces: &mut BTreeMap<String, Value>,
) {
    if is_crd(&resource.id) {
        let spec = &resource.value["spec"];
        if let (Some(group), Some(kind)) = (spec["group"].as_str(), spec["names"]["kind"].as_str())
        {
            let scope = if spec["scope"].as_str() == Some("Cluster") {
                Scope::Cluster
            } else {
                Scope::Namespaced
            };
            scopes.add_custom(group, kind, scope);
        }
    } else if resource.id.group.is_empty() && resource.id.kind == "Namespace" {
        namespaces.insert(resource.id.name.clone(), resource.value.clone());
    }
}

/// A kpt item's relative paths resolve against the directory of the file it came from.
fn base_dir_of(resource: &Resource, root: &std::path::Path) -> PathBuf {
    let path = resource
        .annotation("internal.config.kubernetes.io/path")
        .or_else(|| resource.annotation("config.kubernetes.io/path"));
    match path.and_then(|p| std::path::Path::new(p).parent()) {
        Some(dir) => root.join(dir),
        None => root.to_path_buf(),
    }
}

pub fn run(options: Options, stdin: &[u8]) -> Outcome {
    let stdin_source: Arc<str> = Arc::from(STDIN);
    let mut intake = Intake {
        krm: false,
        keep_config: options.keep_config,
        slots: Vec::new(),
        loader: Loader::new(options.allow_paths_outside_root),
        scopes: ScopeTable::default(),
        namespaces: BTreeMap::new(),
        crds: Vec::new(),
        diagnostics: Vec::new(),
        options: options.clone(),
    };

    // Plugin configuration and --config files come first: rules are known before resources.
    if let Some(path) = &options.plugin_config {
        load_plugin_config(&mut intake, path);
    }
    for path in &options.config_paths {
        intake.loader.load_config_path(path);
    }

    let mut function_config = None;
    let mut pending_list: Option<Document> = None;
    let mut documents = 0usize;
    decode_stream(stdin, &stdin_source, |doc| {
        let doc = match doc {
            Ok(doc) => doc,
            Err(problem) => return intake.diagnostics.push(problem),
        };
        documents += 1;
        if resource_list::is_resource_list(&doc.value) && documents == 1 {
            pending_list = Some(doc);
        } else {
            if let Some(list) = pending_list.take() {
                intake.accept(list);
            }
            intake.accept(doc);
        }
    });
    if let Some(list) = pending_list {
        intake.krm = true;
        function_config = accept_resource_list(&mut intake, list);
    }

    for item in &intake.loader.items {
        learn_context(&item.resource, &mut intake.scopes, &mut intake.namespaces);
    }
    let (pipeline, compile_problems) = engines::compile(&intake.loader.items, &options);
    intake
        .diagnostics
        .extend(unvalidated_custom_resources(&intake));
    let mut diagnostics = std::mem::take(&mut intake.diagnostics);
    diagnostics.append(&mut intake.loader.diagnostics);
    diagnostics.extend(compile_problems);

    let krm = intake.krm;
    // Without a subcommand, stdin that reads as YAML but is not a ResourceList is an
    // unsupported operation; stdin that does not read at all is reported as such.
    if options.mode == Mode::Krm && !krm && (documents > 0 || !has_errors(&diagnostics)) {
        return not_a_resource_list();
    }
    let format = options.format.unwrap_or(if krm {
        Format::ResourceList
    } else {
        Format::Yaml
    });
    let cx = Context {
        scopes: std::mem::take(&mut intake.scopes),
        namespaces: std::mem::take(&mut intake.namespaces),
        default_namespace: options.namespace.clone(),
        operation: options.operation,
    };

    let mut changes = Vec::new();
    let mut encoder = Encoder::new(format);
    if !has_errors(&diagnostics) {
        admit_all(
            &intake,
            &pipeline,
            &cx,
            &options,
            &mut encoder,
            &mut diagnostics,
            &mut changes,
        );
    }

    let failed = has_errors(&diagnostics);
    let results: Vec<Value> = diagnostics.iter().map(Diagnostic::to_krm_result).collect();
    let stdout = match (failed, krm) {
        (false, _) => encoder.finish(function_config.as_ref(), if krm { &results } else { &[] }),
        // KRM: answer with the items as they came in, untouched, and the results.
        (true, true) if format == Format::ResourceList => {
            let mut original = Encoder::new(Format::ResourceList);
            for slot in &intake.slots {
                original.push(&slot.value());
            }
            original.finish(function_config.as_ref(), &results)
        }
        (true, _) => String::new(),
    };
    let exit_code = if krm {
        i32::from(failed)
    } else {
        exit_code(&diagnostics)
    };
    Outcome {
        stdout,
        diagnostics,
        exit_code,
        changes,
    }
}

/// Custom resources whose CRD kadmit has are not yet checked against it: say so once per
/// kind rather than let the user believe they were validated.
fn unvalidated_custom_resources(intake: &Intake) -> Vec<Diagnostic> {
    let crd_kinds: Vec<(String, String)> = intake
        .loader
        .items
        .iter()
        .map(|item| &item.resource.value)
        .chain(intake.crds.iter())
        .filter_map(|crd| {
            let spec = crd.get("spec")?;
            Some((
                spec["group"].as_str()?.to_owned(),
                spec["names"]["kind"].as_str()?.to_owned(),
            ))
        })
        .collect();
    let mut warned: Vec<&(String, String)> = Vec::new();
    let mut out = Vec::new();
    for slot in &intake.slots {
        let Some(id) = &slot.id else { continue };
        if let Some(kind) = crd_kinds
            .iter()
            .find(|(g, k)| *g == id.group && *k == id.kind)
        {
            if !warned.contains(&kind) {
                warned.push(kind);
                out.push(
                    Diagnostic::warning(format!(
                        "{}/{} {} resources are not validated against their CustomResourceDefinition: this kadmit build has no schema engine yet",
                        kind.0, id.version, kind.1
                    ))
                    .with_origin(&slot.origin),
                );
            }
        }
    }
    out
}

/// Exit 127: without a subcommand kadmit only speaks the KRM function protocol.
fn not_a_resource_list() -> Outcome {
    Outcome {
        stdout: String::new(),
        diagnostics: vec![Diagnostic::input(
            "no subcommand given and stdin is not a ResourceList: the operation is not supported \
             (use `kadmit transform` or `kadmit generate`)",
        )],
        exit_code: crate::cli::EXIT_UNSUPPORTED,
        changes: Vec::new(),
    }
}

fn admit_all(
    intake: &Intake,
    pipeline: &Pipeline,
    cx: &Context,
    options: &Options,
    encoder: &mut Encoder,
    diagnostics: &mut Vec<Diagnostic>,
    changes: &mut Vec<(Identity, Vec<Change>)>,
) {
    for slot in &intake.slots {
        if slot.passthrough {
            encoder.push(&slot.value());
            continue;
        }
        let mut resource = slot.resource();
        if slot.list {
            admit_list_items(pipeline, cx, options, &mut resource, diagnostics, changes);
        } else if !pipeline.is_empty() {
            admit_one(pipeline, cx, options, &mut resource, diagnostics, changes);
        }
        encoder.push(&resource.value);
    }
    if matches!(options.mode, Mode::Generate | Mode::Krm) {
        generate_all(intake, pipeline, cx, options, encoder, diagnostics, changes);
    }
}

fn admit_list_items(
    pipeline: &Pipeline,
    cx: &Context,
    options: &Options,
    list: &mut Resource,
    diagnostics: &mut Vec<Diagnostic>,
    changes: &mut Vec<(Identity, Vec<Change>)>,
) {
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
        };
        admit_one(pipeline, cx, options, &mut resource, diagnostics, changes);
        *item = resource.value;
    }
}

fn admit_one(
    pipeline: &Pipeline,
    cx: &Context,
    options: &Options,
    resource: &mut Resource,
    diagnostics: &mut Vec<Diagnostic>,
    changes: &mut Vec<(Identity, Vec<Change>)>,
) {
    let admission = pipeline.admit(resource, cx);
    if options.annotate && !admission.changes.is_empty() {
        let mut rules: Vec<&str> = Vec::new();
        for change in &admission.changes {
            if !rules.contains(&change.rule.as_str()) {
                rules.push(&change.rule);
            }
        }
        let rules = rules.join(", ");
        resource.set_annotation(CHANGED_BY_ANNOTATION, rules);
    }
    diagnostics.extend(admission.diagnostics);
    if !admission.changes.is_empty() {
        changes.push((resource.id.clone(), admission.changes));
    }
}

/// Virtual resources that are not rules for a known engine are generator input.
fn generate_all(
    intake: &Intake,
    pipeline: &Pipeline,
    cx: &Context,
    options: &Options,
    encoder: &mut Encoder,
    diagnostics: &mut Vec<Diagnostic>,
    changes: &mut Vec<(Identity, Vec<Change>)>,
) {
    // Without a subcommand (a KRM function), only the functionConfig asks for generation.
    let virtual_items = intake.loader.items.iter().filter(|item| {
        item.is_generator_input()
            && (options.mode == Mode::Generate || item.source == Source::FunctionConfig)
    });
    for item in virtual_items {
        let virtual_resource = &item.resource;
        let Some(generator) = pipeline
            .generators
            .iter()
            .find(|g| g.handles(virtual_resource))
        else {
            diagnostics.push(
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
        match generator.generate(virtual_resource, cx) {
            Ok(values) => {
                for (i, mut value) in values.into_iter().enumerate() {
                    strip_config_annotations(&mut value);
                    let origin = Origin {
                        list_item: Some(i),
                        ..virtual_resource.origin.clone()
                    };
                    match Resource::new(value, origin.clone()) {
                        Ok(mut resource) => {
                            admit_one(pipeline, cx, options, &mut resource, diagnostics, changes);
                            encoder.push(&resource.value);
                        }
                        Err(message) => diagnostics.push(
                            Diagnostic::config(format!("generated document {i}: {message}"))
                                .with_resource(&virtual_resource.id)
                                .with_origin(&origin),
                        ),
                    }
                }
            }
            Err(problems) => diagnostics.extend(problems),
        }
    }
}

/// A ConfigMap functionConfig (kpt's `function-input` from `-- k=v`, or `--fn-config` with a
/// ConfigMap) carries key/value settings, not rules or generator input.
fn is_function_input(id: &Identity) -> bool {
    id.group.is_empty() && id.kind == "ConfigMap"
}

/// Generated objects never inherit the markers that made their input configuration.
fn strip_config_annotations(value: &mut Value) {
    if let Some(Value::Object(annotations)) = value.pointer_mut("/metadata/annotations") {
        annotations.remove(LOCAL_CONFIG);
        annotations.remove(FUNCTION_ANNOTATION);
    }
}

fn load_plugin_config(intake: &mut Intake, path: &std::path::Path) {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            intake.diagnostics.push(Diagnostic::config(format!(
                "cannot read plugin configuration {}: {e}",
                path.display()
            )));
            return;
        }
    };
    let source: Arc<str> = Arc::from(path.display().to_string());
    let (docs, problems) = decode_all(&bytes, &source);
    intake.diagnostics.extend(problems);
    let root = intake.options.config_root.clone();
    for doc in crate::io::lists::flatten(docs) {
        match Resource::new(doc.value, doc.origin.clone()) {
            Ok(resource) => intake
                .loader
                .add(resource, Source::PluginConfig, &root, &root),
            Err(message) => intake
                .diagnostics
                .push(Diagnostic::input(message).with_origin(&doc.origin)),
        }
    }
}

/// KRM mode: items are resources (configuration items are passed through untouched), the
/// functionConfig is configuration. Returns the functionConfig to echo back.
fn accept_resource_list(intake: &mut Intake, list: Document) -> Option<Value> {
    let origin = list.origin.clone();
    let rl = match resource_list::unwrap(list.value) {
        Ok(rl) => rl,
        Err(message) => {
            intake
                .diagnostics
                .push(Diagnostic::input(message).with_origin(&origin));
            return None;
        }
    };
    for (i, item) in rl.items.into_iter().enumerate() {
        let item_origin = krm_item_origin(&item, i, &origin);
        intake.accept(Document {
            value: item,
            origin: item_origin,
        });
    }
    let config = rl.function_config?;
    let config_origin = Origin {
        source: Arc::from(FUNCTION_CONFIG),
        index: 0,
        line: 0,
        list_item: None,
    };
    match Resource::new(config.clone(), config_origin.clone()) {
        Ok(resource) if is_function_input(&resource.id) => {
            if config
                .get("data")
                .is_some_and(|d| d.as_object().is_some_and(|m| !m.is_empty()))
            {
                intake.diagnostics.push(
                    Diagnostic::warning(format!(
                        "functionConfig ConfigMap {} is ignored: kadmit reads its configuration from rules, --config and PolicySets",
                        resource.id.name
                    ))
                    .with_origin(&config_origin),
                );
            }
        }
        Ok(resource) => {
            // kustomize also hands a generator's functionConfig over as an item: the
            // functionConfig stands for both.
            let copy = intake
                .loader
                .items
                .iter_mut()
                .find(|item| item.source == Source::Stream && item.resource.id == resource.id);
            match copy {
                Some(item) => item.source = Source::FunctionConfig,
                None => {
                    let root = intake.options.config_root.clone();
                    intake
                        .loader
                        .add(resource, Source::FunctionConfig, &root, &root);
                }
            }
        }
        Err(message) => intake.diagnostics.push(
            Diagnostic::input(format!("functionConfig: {message}")).with_origin(&config_origin),
        ),
    }
    Some(config)
}

/// kpt and kustomize say where each item lives in the path/index annotations.
fn krm_item_origin(item: &Value, position: usize, list: &Origin) -> Origin {
    let path = annotation(item, "internal.config.kubernetes.io/path")
        .or_else(|| annotation(item, "config.kubernetes.io/path"));
    let index = annotation(item, "internal.config.kubernetes.io/index")
        .or_else(|| annotation(item, "config.kubernetes.io/index"))
        .and_then(|i| i.parse().ok());
    match path {
        Some(path) => Origin {
            source: Arc::from(path),
            index: index.unwrap_or(0),
            line: 0,
            list_item: None,
        },
        None => Origin {
            list_item: Some(position),
            ..list.clone()
        },
    }
}

/// The `--report` document.
pub fn report(outcome: &Outcome) -> Value {
    json!({
        "apiVersion": "kadmit.dev/v1alpha1",
        "kind": "Report",
        "exitCode": outcome.exit_code,
        "diagnostics": outcome.diagnostics.iter().map(Diagnostic::to_report).collect::<Vec<_>>(),
        "changes": outcome.changes.iter().map(|(id, changes)| json!({
            "resource": {
                "apiVersion": id.api_version(),
                "kind": id.kind,
                "namespace": id.namespace,
                "name": id.name,
            },
            "changes": changes.iter().map(|c| json!({"path": c.path, "rule": c.rule})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "summary": {
            "errors": outcome.diagnostics.iter().filter(|d| d.severity == Severity::Error).count(),
            "warnings": outcome.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count(),
        },
    })
}
