//! Admission modules: WebAssembly (k8s-wasi, Kubewarden WASI) and exec modules that
//! answer admission requests as JSON over stdin/stdout. See docs/modules.md.
//!
//! Each `AdmissionModule` is read, its program loaded and compiled once per run, and
//! placed in the mutating phase (`mutating: true`) or the validating phase, in
//! configuration order after the other engines of that phase.

pub mod capabilities;
pub mod exec;
pub mod harness;
pub mod kubewarden;
pub mod kubewarden_kinds;
pub mod labels;
pub mod limits;
pub mod order;
pub mod outcome;
pub mod program;
pub mod recognize;
pub mod response;
pub mod review;
pub mod runtime;
#[cfg(test)]
mod runtime_tests;
pub mod settings;
pub mod spec;
pub mod stage;
pub mod tool;
pub mod wapc;
pub mod wasi;
pub mod wasi_host;

use crate::core::config::{confine_path, ConfigItem, Family};
use crate::core::diagnostic::Diagnostic;
use crate::core::engine::{Configuration, Engine};
use crate::core::pipeline::Pipeline;
use exec::ExecModule;
use program::Runner;
use review::Requester;
use runtime::WasmModule;
use spec::{ModuleSpec, Program};
use stage::ModuleStage;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the module engine is told by the run.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// `--user`: the username modules see in the request's `userInfo`.
    pub user: Option<String>,
    /// `--group`: the groups modules see in the request's `userInfo`.
    pub groups: Vec<String>,
    /// `--allow-paths-outside-root`: module paths of trusted configuration may leave their
    /// root.
    pub allow_paths_outside_root: bool,
    /// `--allow-exec`: exec modules may come from the resource stream too.
    pub allow_exec: bool,
}

/// The module engine: every `AdmissionModule`, in configuration order, after KubeMod and
/// Gatekeeper in each phase.
pub struct Modules {
    pub settings: Settings,
}

impl Engine for Modules {
    fn compile(&mut self, config: &Configuration<'_>, pipeline: &mut Pipeline) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        // AdmissionModules and Kubewarden policies, together in configuration order.
        let items: Vec<&ConfigItem> = config
            .items
            .iter()
            .copied()
            .filter(|item| {
                matches!(
                    item.family,
                    Some(Family::AdmissionModule | Family::KubewardenPolicy)
                )
            })
            .collect();
        compile(&items, &self.settings, pipeline, &mut diagnostics);
        diagnostics
    }
}

/// Compiles every `AdmissionModule` and Kubewarden policy into the mutating and
/// validating phases.
fn compile(
    items: &[&ConfigItem],
    options: &Settings,
    pipeline: &mut Pipeline,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if items.is_empty() {
        return;
    }
    let engine = runtime::engine();
    let requester = Requester::new(options.user.as_deref(), &options.groups);
    for item in items {
        let rule = item.resource.id.to_string();
        let report = |message: String| {
            Diagnostic::config(message)
                .with_rule(rule.clone())
                .with_origin(&item.resource.origin)
        };
        let read = match item.family {
            Some(Family::KubewardenPolicy) => {
                kubewarden_kinds::read(&item.resource.value).map(|(spec, hook)| (spec, Some(hook)))
            }
            _ => ModuleSpec::from_resource(&item.resource.value).map(|spec| (spec, None)),
        };
        let (mut spec, webhook) = match read {
            Ok(read) => read,
            Err(problems) => {
                diagnostics.extend(problems.into_iter().map(report));
                continue;
            }
        };
        let name = item.resource.id.name.clone();
        if let (Program::Exec(_), false) = (&spec.program, item.trusted || options.allow_exec) {
            diagnostics.push(report(EXEC_FROM_STREAM.into()));
            continue;
        }
        // Paths of stream documents stay inside their root whatever the flag says.
        let allow_outside_root = options.allow_paths_outside_root && item.trusted;
        let runner = match load(&spec.program, item, allow_outside_root, &engine) {
            Ok(runner) => runner,
            Err(message) => {
                diagnostics.push(report(message));
                continue;
            }
        };
        if webhook.is_some() {
            // A Kubewarden policy's module says which protocol it speaks.
            match kubewarden_protocol(&runner) {
                Ok(protocol) => spec.protocol = protocol,
                Err(message) => {
                    diagnostics.push(report(message));
                    continue;
                }
            }
        }
        let checked = runner
            .check_entry(spec.protocol, "validate", &name)
            .and_then(|()| {
                settings::check(&runner, spec.protocol, spec.settings.as_ref(), spec.limits)
            });
        if let Err(message) = checked {
            diagnostics.push(report(message));
            continue;
        }
        let stage = ModuleStage {
            name,
            rule,
            runner,
            requester: requester.clone(),
            spec,
            matched: Default::default(),
            host: Default::default(),
            webhook,
        };
        add_lookup_kinds(pipeline, &stage.spec.context_aware);
        if stage.spec.mutating {
            pipeline.mutating.push(Box::new(stage));
        } else {
            pipeline.validating.push(Box::new(stage));
        }
    }
}

/// The protocol of a Kubewarden policy's module: waPC (Kubewarden's default) or WASI.
fn kubewarden_protocol(runner: &Runner) -> Result<spec::Protocol, String> {
    let Runner::Wasm(module) = runner else {
        return Err("spec.module: a Kubewarden policy's module is WebAssembly".into());
    };
    match module.kind() {
        recognize::Kind::KubewardenWapc => Ok(spec::Protocol::KubewardenWapc),
        recognize::Kind::KubewardenWasi => Ok(spec::Protocol::KubewardenWasi),
        other => Err(format!(
            "spec.module: not a Kubewarden policy kadmit runs: it looks like {}",
            other.describe()
        )),
    }
}

/// Asks the run for the objects of the kinds a policy may read through the host.
fn add_lookup_kinds(pipeline: &mut Pipeline, kinds: &[(String, String)]) {
    for (api_version, kind) in kinds {
        let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
        let key = (group.to_owned(), kind.clone());
        if !pipeline.lookup_kinds.contains(&key) {
            pipeline.lookup_kinds.push(key);
        }
    }
}

/// Why an exec module from the resource stream is refused (docs/security.md).
const EXEC_FROM_STREAM: &str = "spec.exec: an exec module runs a program with your rights, and this one came from the resource stream, which whoever wrote the manifests controls; exec modules are taken only from trusted configuration (--config, --plugin-dir, the kustomize plugin configuration, the KRM functionConfig), or from the stream with --allow-exec";

/// Reads and compiles a `.wasm` file, or resolves an exec command, relative to the
/// configuration and confined to its root.
fn load(
    program: &Program,
    item: &ConfigItem,
    allow_outside_root: bool,
    engine: &wasmi::Engine,
) -> Result<Runner, String> {
    match program {
        Program::Wasm(path) => {
            let file = confine_path(path, &item.base_dir, &item.root, allow_outside_root)
                .map_err(|e| format!("spec.module: {e}"))?;
            let bytes = std::fs::read(&file)
                .map_err(|e| format!("spec.module: cannot read {}: {e}", file.display()))?;
            let module = WasmModule::compile(engine, &bytes)
                .map_err(|e| format!("spec.module: {path}: {e}"))?;
            Ok(Runner::Wasm(Arc::new(module)))
        }
        Program::Exec(command) => {
            let (program, args) = command.split_first().expect("a command is never empty");
            // A path is the configuration's (made absolute: the module runs in the root);
            // a bare name is looked up on PATH.
            let program = if program.contains('/') {
                let file = confine_path(program, &item.base_dir, &item.root, allow_outside_root)
                    .map_err(|e| format!("spec.exec.command[0]: {e}"))?;
                file.canonicalize().unwrap_or(file)
            } else {
                PathBuf::from(program)
            };
            Ok(Runner::Exec(ExecModule {
                program,
                args: args.to_vec(),
                working_dir: working_dir(&item.root),
            }))
        }
    }
}

/// Exec modules run in the configuration root.
fn working_dir(root: &Path) -> PathBuf {
    root.canonicalize().unwrap_or_else(|_| root.to_path_buf())
}

/// The start of what a module wrote, quoted, for messages about output kadmit cannot use.
pub fn excerpt(bytes: &[u8]) -> String {
    const SHOWN: usize = 200;
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    if text.is_empty() {
        return "(no output)".into();
    }
    match text.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{:?}…", &text[..cut]),
        None => format!("{text:?}"),
    }
}
