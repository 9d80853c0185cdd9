//! One invocation: read input and configuration, compile the engines, admit every
//! resource, and produce the output stream, the diagnostics and the exit code.

mod admit;
mod compile;
mod intake;
mod old;
pub mod report;
mod strict;
pub mod suite;

use crate::core::config::{is_unsupported_family, unsupported_family};
use crate::core::diagnostic::{exit_code, has_errors, Diagnostic};
use crate::core::jobs::Jobs;

/// The admission operation: `--operation`, and per resource with `--old`.
pub use crate::core::pipeline::Operation;
use crate::core::pipeline::{Change, Context, Objects, Unmatched};
use crate::core::resource::{Identity, Origin};
use crate::engines::generator::discovery::{plugin_roots, Catalog};
use crate::io::encode::{Encoder, Format};
pub use crate::io::output::Output;
use admit::Admitter;
use intake::Intake;
use old::OldObjects;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The annotation `--annotate` writes: the rules that changed a resource.
pub const CHANGED_BY_ANNOTATION: &str = "kadmit.dev/changed-by";

pub use crate::core::config::Mode;
/// How serious a diagnostic is (the edge prints only errors under `--quiet`).
pub use crate::core::diagnostic::Severity;
/// `--kubernetes-version`: `1.33` read as the minor 33, when kadmit has that version.
pub use crate::engines::builtin::parse_version as parse_kubernetes_version;

#[derive(Debug, Clone)]
pub struct Options {
    pub mode: Mode,
    /// `-f`: the files, directories and `-` (stdin) the stream is read from, in order;
    /// empty: stdin.
    pub inputs: Vec<PathBuf>,
    /// `-R`: `-f DIR` and `--old DIR` read subdirectories too.
    pub recursive: bool,
    /// `--old`: the files, directories and `-` (stdin) the previous state is read from;
    /// each resource with an old object is admitted as an UPDATE, each old object without
    /// a resource as a DELETE (docs/update.md).
    pub old_inputs: Vec<PathBuf>,
    /// `None`: a YAML stream, or a ResourceList when the input was one.
    pub format: Option<Format>,
    pub config_paths: Vec<PathBuf>,
    /// `--crd`: CustomResourceDefinitions used, not written out.
    pub crd_paths: Vec<PathBuf>,
    pub field_validation: kadmit_schema::admission::FieldValidation,
    /// `--config-validation`: what unknown fields of configuration documents and CRDs do.
    pub config_validation: kadmit_schema::admission::FieldValidation,
    /// Write schema defaults into custom resources (`--no-defaults` turns it off).
    pub write_defaults: bool,
    /// The kustomize legacy plugin configuration file (argv[1]).
    pub plugin_config: Option<PathBuf>,
    /// Where relative paths in stdin/plugin configuration resolve, and may not escape.
    pub config_root: PathBuf,
    pub keep_config: bool,
    pub namespace: String,
    pub operation: Operation,
    pub annotate: bool,
    pub allow_paths_outside_root: bool,
    /// `--skip-unsupported`: a policy of a family kadmit does not run, given as
    /// configuration, is a warning instead of an error.
    pub skip_unsupported: bool,
    /// `--allow-empty`: a plain stream with no document is a success (writing nothing).
    pub allow_empty: bool,
    /// `--allow-exec`: exec modules may come from the resource stream, not only from
    /// trusted configuration.
    pub allow_exec: bool,
    /// Built-in kinds are strictly decoded, natively defaulted and natively validated
    /// (docs/builtins.md); `--no-builtins` turns it off.
    pub builtins: bool,
    /// `--kubernetes-version`: the minor version (33 for 1.33) whose built-in kinds are
    /// followed; `None`: as configuration pins it, else the newest.
    pub kubernetes_version: Option<u32>,
    /// `--max-document-nodes`: how much one document may hold once read.
    pub limits: kadmit_yaml::Limits,
    pub cluster_modrules_namespace: String,
    pub strict: bool,
    pub gatekeeper_annotations: bool,
    /// `--plugin-dir`: generator plugin roots searched before KADMIT_PLUGIN_PATH.
    pub plugin_dirs: Vec<PathBuf>,
    /// The plugin roots the environment names, in search order (`KADMIT_PLUGIN_PATH`,
    /// `$XDG_CONFIG_HOME/kustomize/plugins`): read by the edge, see
    /// `cli::environment_plugin_roots`.
    pub environment_plugin_roots: Vec<PathBuf>,
    /// `--user`: the username admission modules see in the request's `userInfo`.
    pub user: Option<String>,
    /// `--group`: the groups admission modules see in the request's `userInfo`.
    pub groups: Vec<String>,
    /// Keep each admitted resource's value as read and as admitted in
    /// [`Outcome::admitted`] (`kadmit diff`); off, nothing more is held than the output.
    pub keep_admitted: bool,
    /// Keep who was admitted in [`Outcome::subjects`] (reports, `kadmit test`); off (no
    /// `--report`), nothing is held per resource but its slot (docs/security.md, "Memory").
    pub keep_subjects: bool,
    /// `--jobs`: how many threads decoding, admission and encoding are spread over (at
    /// least one; one starts no thread). The output does not depend on it.
    pub jobs: usize,
}

/// Every core the system offers this process: `--jobs`' default.
pub fn available_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

impl Options {
    /// The defaults of `kadmit transform`/`generate` with no flags, relative paths
    /// resolving against the working directory.
    pub fn new(mode: Mode) -> Options {
        Options {
            mode,
            inputs: Vec::new(),
            recursive: false,
            old_inputs: Vec::new(),
            format: None,
            config_paths: Vec::new(),
            crd_paths: Vec::new(),
            field_validation: kadmit_schema::admission::FieldValidation::Strict,
            config_validation: kadmit_schema::admission::FieldValidation::Strict,
            write_defaults: true,
            plugin_config: None,
            config_root: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            keep_config: false,
            namespace: "default".into(),
            operation: Operation::Create,
            annotate: false,
            allow_paths_outside_root: false,
            allow_exec: false,
            allow_empty: false,
            limits: kadmit_yaml::Limits::default(),
            kubernetes_version: None,
            builtins: true,
            skip_unsupported: false,
            cluster_modrules_namespace: "kubemod-system".into(),
            strict: false,
            gatekeeper_annotations: false,
            plugin_dirs: Vec::new(),
            environment_plugin_roots: Vec::new(),
            user: None,
            groups: Vec::new(),
            keep_admitted: false,
            keep_subjects: true,
            jobs: available_jobs(),
        }
    }
}

pub struct Outcome {
    /// What goes to stdout: in a YAML stream, untouched documents are ranges of the
    /// input, which it holds ([`Output`]).
    pub stdout: Output,
    pub diagnostics: Vec<Diagnostic>,
    pub exit_code: i32,
    /// Per resource: what changed it.
    pub changes: Vec<(Identity, Vec<Change>)>,
    /// The configured rules that matched no object of the run.
    pub unmatched: Vec<Unmatched>,
    /// With [`Options::keep_admitted`]: every resource that went through admission, in
    /// input order (empty when admission did not run: bad input or configuration).
    pub admitted: Vec<Admitted>,
    /// With [`Options::keep_subjects`]: every resource admission saw, in input order
    /// (empty when the run stopped before admission: bad input or configuration).
    pub subjects: Vec<Subject>,
}

/// One resource through admission, as `kadmit diff` shows it.
#[derive(Debug, Clone)]
pub struct Admitted {
    pub id: Identity,
    /// Where it was read: the stream, or for a DELETE the `--old` input.
    pub origin: Origin,
    pub operation: Operation,
    /// Its previous state (`--old`): for an UPDATE the old object, for a DELETE the
    /// object deleted.
    pub old: Option<std::sync::Arc<Value>>,
    /// The resource as read (null for a DELETE).
    pub before: Value,
    /// The resource as admitted; `None` when admission rejected it, and for a DELETE.
    pub after: Option<Value>,
    /// What changed it, in the order the rules ran.
    pub changes: Vec<Change>,
    /// Its own diagnostics: the indexes in [`Outcome::diagnostics`] of what its admission
    /// reported (rejections, warnings), so a renderer can show them in place.
    pub diagnostics: std::ops::Range<usize>,
}

/// One resource admission saw: what it is, where it was read, and the namespace it was
/// admitted in (`--namespace` for a namespaced resource naming none; `None` for a
/// cluster-scoped kind).
#[derive(Debug, Clone, PartialEq)]
pub struct Subject {
    pub id: Identity,
    pub origin: Origin,
    pub namespace: Option<String>,
    /// CREATE, UPDATE (it has an old object), DELETE (an old object the stream no
    /// longer has), or the run's `--operation`.
    pub operation: Operation,
}

pub fn run(options: Options, stdin: &[u8]) -> Outcome {
    run_input(options, Cow::Borrowed(stdin), Teardown::Free)
}

/// What an empty or unused input means, said instead of passed silently: a plain stream
/// with no document at all (an upstream `kustomize build` that failed in a pipeline
/// without `pipefail`, which a GitOps tool could apply as "delete everything"), a
/// `--plugin-dir` that does not exist, and virtual resources `transform` consumes
/// without generating from them.
/// `claimed`: how many stream documents were virtual resources of a kind a generator
/// defines. `failed`: the input or configuration was already refused (an unreadable
/// stream has no document either, and needs no second message).
fn fail_closed(
    options: &Options,
    intake: &Intake,
    claimed: &[(Identity, Origin)],
    failed: bool,
) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    let plain_stream = options.mode != Mode::Krm && options.plugin_config.is_none();
    // `generate` from virtual resources given in --config has input, on stdin or not.
    let generates = intake
        .loader
        .items
        .iter()
        .any(|item| item.is_generated_in(options.mode));
    if plain_stream && intake.documents == 0 && !generates && !failed && !options.allow_empty {
        let held = if options.inputs.is_empty() {
            "stdin held"
        } else {
            "the files -f names hold"
        };
        problems.push(Diagnostic::input(format!(
            "no input: {held} no document (an upstream command that failed in a pipeline \
             without `set -o pipefail`?); pass --allow-empty if an empty stream is meant"
        )));
    }
    for dir in &options.plugin_dirs {
        if !dir.is_dir() {
            problems.push(Diagnostic::config(format!(
                "--plugin-dir {}: no such directory",
                dir.display()
            )));
        }
    }
    let unrun: Vec<String> = intake
        .slots
        .iter()
        .filter(|slot| {
            intake
                .group_kind(slot)
                .is_some_and(|(group, kind)| is_unsupported_family(group, kind))
        })
        .map(|slot| slot.resource(&intake.texts).id)
        .filter_map(|id| unsupported_family(&id).map(|family| format!("{id}: {}", family.name)))
        .collect();
    if !unrun.is_empty() {
        problems.push(Diagnostic::info(format!(
            "{} polic{} in the stream {} passed through as {}: kadmit does not run {} ({}); \
             to have kadmit apply policies, give them as configuration of a kind it runs",
            unrun.len(),
            if unrun.len() == 1 { "y" } else { "ies" },
            if unrun.len() == 1 { "was" } else { "were" },
            if unrun.len() == 1 {
                "a resource"
            } else {
                "resources"
            },
            if unrun.len() == 1 { "it" } else { "them" },
            unrun.join("; ")
        )));
    }
    if options.mode == Mode::Transform && !options.keep_config {
        for (id, origin) in claimed {
            problems.push(
                Diagnostic::warning(format!(
                    "{id} is a generator's input: `kadmit transform` consumed it without generating \
                     (KEP-993 lets a transformer pass virtual resources on); run `kadmit generate` \
                     to generate from it"
                ))
                .with_origin(origin),
            );
        }
    }
    problems
}

/// What `--old` cannot be combined with: an `--operation` other than CREATE (with
/// `--old` the operation is each resource's own), and stdin read twice.
fn old_conflicts(options: &Options) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    if options.old_inputs.is_empty() {
        return problems;
    }
    if options.operation != Operation::Create {
        problems.push(Diagnostic::input(format!(
            "--old cannot be combined with --operation {}: with --old each resource's operation \
             is its own (UPDATE with an old object, CREATE without, DELETE for an old object \
             the stream no longer has)",
            options.operation.as_str()
        )));
    }
    let old_stdin = options.old_inputs.iter().any(|p| p.as_os_str() == "-");
    let stream_stdin =
        options.inputs.is_empty() || options.inputs.iter().any(|p| p.as_os_str() == "-");
    if old_stdin && stream_stdin {
        problems.push(Diagnostic::input(
            "--old - reads stdin, which the stream also reads: stdin can be read only once \
             (give the stream with -f FILE)",
        ));
    }
    let stdin_twice = options
        .old_inputs
        .iter()
        .filter(|p| p.as_os_str() == "-")
        .count()
        > 1;
    if stdin_twice {
        problems.push(Diagnostic::input(
            "--old - is given more than once: stdin can be read only once",
        ));
    }
    problems
}

/// [`run`] for a process that exits after it (the binary's path): the compiled
/// configuration and the intake are left to the operating system instead of freed (see
/// [`Teardown::Leave`]). The input is kept until the output is written either way:
/// untouched documents are copied from it.
pub fn run_owned(options: Options, stdin: Vec<u8>) -> Outcome {
    run_input(options, Cow::Owned(stdin), Teardown::Leave)
}

/// What becomes of the compiled configuration when a run is over.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Teardown {
    /// Freed, as a library call must.
    Free,
    /// Left for the process's exit to reclaim, as many CLIs do: freeing a CRD set's
    /// trees piece by piece is megabytes of work (a tenth of a run that uses none of its
    /// kinds) that changes nothing the process writes. The pipeline and the intake hold
    /// no file, lock or buffer a drop would flush; the intake's thread pool idles until
    /// the process ends.
    Leave,
}

fn run_input(options: Options, mut stdin: Cow<'_, [u8]>, teardown: Teardown) -> Outcome {
    let jobs = std::sync::Arc::new(Jobs::new(options.jobs));
    let mut intake = Intake::new(&options, jobs);
    // Plugin configuration and --config files come first: rules are known before resources.
    if let Some(path) = &options.plugin_config {
        intake.loader.load_plugin_config(path, &options.config_root);
    }
    for path in &options.config_paths {
        intake.loader.load_config_path(path);
    }
    for path in &options.crd_paths {
        intake.load_crd_path(path, options.allow_paths_outside_root, options.limits);
    }
    let input_len = if options.inputs.is_empty() {
        let len = stdin.len();
        if options.old_inputs.iter().any(|p| p.as_os_str() == "-") {
            // Refused below (stdin read twice), and read for the old objects too.
            intake.read_stdin(Cow::Borrowed(&stdin));
        } else {
            // Handed over: the output is written from it (`Output`).
            intake.read_stdin(std::mem::take(&mut stdin));
        }
        len
    } else {
        intake.read_files(&options.inputs, options.recursive, &stdin)
    };
    // After the stream: an old object whose text is a stream document's is not read again.
    let known_texts = intake.known_texts.take().unwrap_or_default();
    let mut old_objects = OldObjects::read(
        &options.old_inputs,
        options.recursive,
        &stdin,
        &options.limits,
        &known_texts,
        &mut intake.diagnostics,
    );
    drop(known_texts);
    intake.diagnostics.extend(old_conflicts(&options));
    // The input stays until the output is written: untouched documents are copied from
    // it (docs/yaml.md, "Untouched documents").

    let mut catalog = Catalog::new(
        plugin_roots(
            &options.plugin_dirs,
            &options.environment_plugin_roots,
            &options.config_root,
        ),
        options.allow_paths_outside_root,
    );
    let mut claimed = Vec::new();
    if options.mode != Mode::Krm {
        let explicit = crate::engines::generator::explicit_kinds(&intake.loader.items);
        claimed = intake.claim_virtual(|group, kind| {
            explicit.iter().any(|(g, k)| g == group && k == kind) || catalog.defines(group, kind)
        });
    }
    let (pipeline, compile_problems) = {
        let crds = intake.take_crds();
        compile::compile(&intake.loader.items, crds, catalog, &options)
    };
    let mut diagnostics = std::mem::take(&mut intake.diagnostics);
    diagnostics.append(&mut intake.loader.diagnostics);
    diagnostics.extend(compile_problems);
    diagnostics.extend(fail_closed(
        &options,
        &intake,
        &claimed,
        has_errors(&diagnostics),
    ));

    let krm = intake.krm;
    // Without a subcommand, stdin that reads as YAML but is not a ResourceList is an
    // unsupported operation; stdin that does not read at all is reported as such.
    if options.mode == Mode::Krm && !krm && (intake.documents > 0 || !has_errors(&diagnostics)) {
        return not_a_resource_list();
    }
    let format = options.format.unwrap_or(if krm {
        Format::ResourceList
    } else {
        Format::Yaml
    });
    let cx = Context {
        kinds: std::mem::take(&mut intake.kinds),
        namespaces: std::mem::take(&mut intake.namespaces),
        default_namespace: options.namespace.clone(),
        operation: options.operation,
        objects: intake
            .objects_of(&pipeline.lookup_kinds)
            .into_iter()
            .map(|(key, objects)| (key, Objects::new(objects)))
            .collect(),
    };

    diagnostics.extend(old_objects.index(&cx));
    let mut admitter = Admitter {
        pipeline: &pipeline,
        cx: &cx,
        options: &options,
        old: &mut old_objects,
        diagnostics,
        changes: Vec::new(),
        subjects: Vec::new(),
        resultants: pipeline.expander.as_ref().map(|_| Vec::new()),
        admitted: options.keep_admitted.then(Vec::new),
    };
    let mut encoder = Encoder::with_capacity(format, input_len + input_len / 8);
    let mut unmatched = Vec::new();
    if !has_errors(&admitter.diagnostics) {
        let stream_kinds = intake.stream_kinds();
        admitter.admit_all(&mut intake, &mut encoder, krm);
        unmatched = pipeline.unmatched();
        if let Some(line) = unmatched_summary(&unmatched, &stream_kinds) {
            admitter.diagnostics.push(line);
        }
    }
    let Admitter {
        diagnostics,
        changes,
        admitted,
        subjects,
        ..
    } = admitter;

    let failed = has_errors(&diagnostics);
    let results: Vec<Value> = diagnostics.iter().map(Diagnostic::to_krm_result).collect();
    let function_config = intake.function_config.as_ref();
    let stdout = match (failed, krm) {
        (false, _) => encoder
            .finish_pieces(function_config, if krm { &results } else { &[] })
            .with_inputs(std::mem::take(&mut intake.texts)),
        // KRM: answer with the items as they came in, untouched, and the results.
        (true, true) if format == Format::ResourceList => {
            let mut original = Encoder::new(Format::ResourceList);
            for slot in &intake.slots {
                let value = slot.value(&intake.texts);
                match slot.source.as_deref() {
                    Some(text) => original.push_item(&value, &value, text),
                    None => original.push(&value),
                }
            }
            Output::text(original.finish(function_config, &results))
        }
        (true, _) => Output::default(),
    };
    let exit_code = if krm {
        i32::from(failed)
    } else {
        exit_code(&diagnostics)
    };
    if teardown == Teardown::Leave {
        std::mem::forget(pipeline);
        std::mem::forget(intake);
    }
    Outcome {
        stdout,
        diagnostics,
        exit_code,
        changes,
        unmatched,
        admitted: admitted.unwrap_or_default(),
        subjects,
    }
}

/// Kinds whose pods a Pod-targeted mutator reaches only through ExpansionTemplates.
const POD_TEMPLATE_KINDS: &[&str] = &[
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "ReplicaSet",
    "Job",
    "CronJob",
];

/// One info line for the rules that matched no object: a rule written for a kind the
/// stream does not have, or a misspelt selector, otherwise passes silently.
fn unmatched_summary(
    unmatched: &[Unmatched],
    stream_kinds: &BTreeSet<String>,
) -> Option<Diagnostic> {
    if unmatched.is_empty() {
        return None;
    }
    let described: Vec<String> = unmatched
        .iter()
        .map(|u| {
            if u.kinds.is_empty() || u.kinds.iter().any(|k| k == "*" || stream_kinds.contains(k)) {
                return u.rule.clone();
            }
            let present: Vec<&str> = stream_kinds.iter().map(String::as_str).take(5).collect();
            let mut hint = format!("{} (applyTo {}", u.rule, u.kinds.join(", "));
            if !present.is_empty() {
                hint += &format!("; the stream has {}", present.join(", "));
            }
            let workloads = POD_TEMPLATE_KINDS.iter().any(|k| stream_kinds.contains(*k));
            if u.kinds.iter().any(|k| k == "Pod") && workloads {
                hint += " — Pods of workloads are mutated through ExpansionTemplates in `kadmit generate`";
            }
            hint + ")"
        })
        .collect();
    let count = unmatched.len();
    Some(Diagnostic::info(format!(
        "{count} rule{} matched no object: {}",
        if count == 1 { "" } else { "s" },
        described.join(", ")
    )))
}

/// Exit 127: without a subcommand kadmit only speaks the KRM function protocol. The
/// message names the fix for the usual way to get here: a Helm 3 post-renderer (Helm runs
/// `--post-renderer` with only the `--post-renderer-args` given, and pipes it the rendered
/// YAML stream) or a pipe into a bare `kadmit`.
fn not_a_resource_list() -> Outcome {
    Outcome {
        stdout: Output::default(),
        diagnostics: vec![Diagnostic::input(
            "no subcommand given and stdin is not a ResourceList: the operation is not supported \
             (use `kadmit transform` or `kadmit generate`; as a Helm post-renderer: \
             `--post-renderer kadmit --post-renderer-args transform`)",
        )],
        exit_code: crate::core::diagnostic::EXIT_UNSUPPORTED,
        changes: Vec::new(),
        unmatched: Vec::new(),
        admitted: Vec::new(),
        subjects: Vec::new(),
    }
}

/// `kadmit diff`'s output for a run made with [`Options::keep_admitted`]: a unified diff
/// of each changed resource with the rules named beside each hunk, each resource's
/// rejections and warnings in place, then the summary line. `color`: ANSI colours.
pub fn diff(outcome: &Outcome, color: bool) -> String {
    crate::io::diff::render(&outcome.admitted, &outcome.diagnostics, color)
}
