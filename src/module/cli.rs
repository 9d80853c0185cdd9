//! `kadmit module run`: run one module on one request and print its response, the module
//! developer's test harness (what `kwctl run` is for Kubewarden policies).

use super::exec::ExecModule;
use super::harness::{Call, UseCase};
use super::limits::{parse_duration, parse_quantity, Limits, MAX_MEMORY_LIMIT};
use super::program::Runner;
use super::review::{admission_request, admission_review, request_uid, Requester, Subject};
use super::runtime::{engine, WasmModule};
use super::spec::Protocol;
use super::{plural, settings};
use crate::io::decode::decode_all;
use crate::pipeline::Operation;
use crate::resource::Identity;
use crate::scope::{Scope, ScopeTable};
use clap::Subcommand;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, Subcommand)]
pub enum ModuleCommand {
    /// Run a module on one request and print its response (exit 0 granted, 1 denied, 2 error).
    Run(RunArgs),
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The module: a `.wasm` file, or with --exec a program.
    pub module: PathBuf,
    /// With --exec: arguments given to the program before the use case.
    #[arg(requires = "exec")]
    pub args: Vec<String>,
    /// The request (JSON or YAML): an AdmissionReview, TokenReview or SubjectAccessReview,
    /// bare or as `{"request": …, "settings": …}`, or a bare AdmissionRequest.
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "object",
        conflicts_with = "object"
    )]
    pub request: Option<PathBuf>,
    /// Build the AdmissionReview from this manifest (with --operation, --user, --group, --namespace).
    #[arg(long, value_name = "FILE")]
    pub object: Option<PathBuf>,
    /// The module's settings (JSON or YAML); replaces settings in the request file.
    #[arg(long, value_name = "FILE")]
    pub settings: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "k8s-wasi")]
    pub protocol: Protocol,
    /// The use case (default: from the request's kind).
    #[arg(long, value_enum)]
    pub use_case: Option<UseCase>,
    /// Stop the module after this long (a Go duration).
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
    /// The most memory the module may use (a quantity).
    #[arg(long, default_value = "64Mi", value_parser = memory_limit)]
    pub memory_limit: u64,
    /// MODULE is a program speaking the same protocol on stdin/stdout (argv: MODULE ARGS... USE-CASE).
    #[arg(long)]
    pub exec: bool,
    /// With --object: the admission operation.
    #[arg(long, value_enum, default_value = "CREATE")]
    pub operation: Operation,
    /// With --object: the username in userInfo (default kadmit).
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,
    /// With --object: a group in userInfo; repeatable (system:authenticated is added).
    #[arg(long = "group", value_name = "GROUP")]
    pub group: Vec<String>,
    /// With --object: the namespace of a namespaced object that names none.
    #[arg(short, long, default_value = "default")]
    pub namespace: String,
}

fn memory_limit(text: &str) -> Result<u64, String> {
    let bytes = parse_quantity(text)?;
    if (1..=MAX_MEMORY_LIMIT).contains(&bytes) {
        Ok(bytes)
    } else {
        Err("must be between 1 and 4Gi".into())
    }
}

pub fn execute(command: ModuleCommand) -> i32 {
    let ModuleCommand::Run(args) = command;
    match run(&args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            2
        }
    }
}

fn run(args: &RunArgs) -> Result<i32, String> {
    let name = module_name(&args.module);
    let (runner, noun) = load(args)?;
    let mut call = match (&args.request, &args.object) {
        (Some(path), _) => Call::from_document(read_document(path)?, args.protocol, args.use_case)
            .map_err(|e| format!("{}: {e}", path.display()))?,
        (None, Some(path)) => {
            let review = review_of_object(args, read_document(path)?)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            Call::from_document(review, args.protocol, args.use_case)?
        }
        (None, None) => unreachable!("clap requires --request or --object"),
    };
    let settings = match &args.settings {
        Some(path) => Some(read_document(path)?),
        None => call.settings.take(),
    };
    let limits = Limits {
        timeout: args.timeout,
        memory: args.memory_limit,
    };
    let describe = match call.use_case {
        UseCase::Validate => format!("admission {noun} module {name:?}"),
        UseCase::Authn | UseCase::Authz => format!("{noun} module {name:?}"),
    };
    runner
        .check_entry(args.protocol, call.use_case.export(), &name)
        .and_then(|()| settings::check(&runner, args.protocol, settings.as_ref(), limits))
        .map_err(|e| format!("{describe}: {e}"))?;
    let stdin = call.stdin(args.protocol, settings.as_ref());
    let output = runner
        .call(args.protocol, call.use_case.export(), stdin, limits)
        .map_err(|failure| format!("{describe} failed: {failure}"))?;
    if !output.stderr.is_empty() {
        eprintln!("{describe} wrote on stderr: {}", output.stderr_text());
    }
    let answer = call
        .answer(args.protocol, &output.stdout)
        .map_err(|e| format!("{describe} returned an invalid response: {e}"))?;
    let pretty = serde_json::to_string_pretty(&answer.response).expect("a JSON value serializes");
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = writeln!(stdout, "{pretty}").and_then(|()| stdout.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(format!("cannot write the response: {e}"));
        }
    }
    if let (Some(patched), Some(object)) = (&answer.patched, &call.object) {
        let mut paths = Vec::new();
        kadmit_jsonpatch::diff::changed_paths(&mut String::new(), object, patched, &mut paths);
        eprintln!("{describe} changes the object at: {}", paths.join(", "));
    }
    match answer.refusal {
        Some(refusal) => {
            eprintln!("{describe} {refusal}");
            Ok(1)
        }
        None => Ok(0),
    }
}

/// A module is named by its file name without `.wasm`, as the reference host names it.
fn module_name(path: &Path) -> String {
    let file = path.file_name().map(|f| f.to_string_lossy().into_owned());
    let file = file.unwrap_or_else(|| path.display().to_string());
    file.strip_suffix(".wasm")
        .map(str::to_owned)
        .unwrap_or(file)
}

fn load(args: &RunArgs) -> Result<(Runner, &'static str), String> {
    if args.exec {
        let working_dir =
            std::env::current_dir().map_err(|e| format!("no working directory: {e}"))?;
        let runner = Runner::Exec(ExecModule {
            program: args.module.clone(),
            args: args.args.clone(),
            working_dir,
        });
        return Ok((runner, "exec"));
    }
    let bytes = std::fs::read(&args.module)
        .map_err(|e| format!("cannot read {}: {e}", args.module.display()))?;
    let module = WasmModule::compile(&engine(), &bytes)
        .map_err(|e| format!("{}: {e}", args.module.display()))?;
    Ok((Runner::Wasm(Arc::new(module)), "WASM"))
}

/// The one document of a JSON or YAML file.
fn read_document(path: &Path) -> Result<Value, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let source: Arc<str> = Arc::from(path.display().to_string());
    let (mut documents, problems) = decode_all(&bytes, &source);
    if let Some(problem) = problems.first() {
        return Err(problem.to_string().trim_start_matches("error: ").to_owned());
    }
    match documents.len() {
        1 => Ok(documents.remove(0).value),
        n => Err(format!(
            "{}: expected one document, found {n}",
            path.display()
        )),
    }
}

/// The AdmissionReview the pipeline would send for `object`.
fn review_of_object(args: &RunArgs, object: Value) -> Result<Value, String> {
    let id = Identity::of(&object)?;
    let namespace = match ScopeTable::default().scope_of(&id.group, &id.kind) {
        Scope::Cluster => None,
        Scope::Namespaced => Some(
            id.namespace
                .clone()
                .unwrap_or_else(|| args.namespace.clone()),
        ),
    };
    let mut object = object;
    if let (Some(ns), None, Some(Value::Object(metadata))) =
        (&namespace, &id.namespace, object.get_mut("metadata"))
    {
        metadata.insert("namespace".into(), Value::String(ns.clone()));
    }
    let resource = plural::guess_plural(&id.kind);
    let subject = Subject {
        group: &id.group,
        version: &id.version,
        kind: &id.kind,
        resource: &resource,
        name: (!id.generated_name).then_some(id.name.as_str()),
        namespace: namespace.as_deref(),
        operation: args.operation.as_str(),
    };
    let requester = Requester::new(args.user.as_deref(), &args.group);
    let uid = request_uid(&subject);
    Ok(admission_review(admission_request(
        &subject, &requester, &uid, &object,
    )))
}
