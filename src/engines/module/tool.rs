//! `kadmit module run`: run one module on one request and print its response, the module
//! developer's test harness (what `kwctl run` is for Kubewarden policies).

use super::capabilities::Host;
use super::exec::ExecModule;
use super::harness::{Call, UseCase};
use super::limits::{parse_quantity, Limits, MAX_MEMORY_LIMIT};
use super::program::Runner;
use super::review::{admission_request, admission_review, request_uid, Requester, Subject};
use super::runtime::{engine, WasmModule};
use super::settings;
use super::spec::Protocol;
use crate::core::kinds::{KindTable, Scope};
use crate::core::pipeline::Operation;
use crate::core::resource::Identity;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One `kadmit module run`: the edge (`cli`) reads argv and the documents, this runs.
#[derive(Debug)]
pub struct Request {
    /// The module: a `.wasm` file, or with `exec` a program.
    pub module: PathBuf,
    /// With `exec`: arguments given to the program before the use case.
    pub args: Vec<String>,
    pub protocol: Protocol,
    /// The use case (default: from the request's kind).
    pub use_case: Option<UseCase>,
    pub timeout: std::time::Duration,
    pub memory_limit: u64,
    /// `module` is a program speaking the same protocol on stdin/stdout.
    pub exec: bool,
    /// With an object: the admission operation.
    pub operation: Operation,
    /// With an object: the username in userInfo (default kadmit).
    pub user: Option<String>,
    /// With an object: the groups in userInfo (system:authenticated is added).
    pub group: Vec<String>,
    /// With an object: the namespace of a namespaced object that names none.
    pub namespace: String,
}

/// A document given by path, already read.
#[derive(Debug)]
pub enum Input {
    Request { path: PathBuf, document: Value },
    Object { path: PathBuf, document: Value },
}

/// `--memory-limit`: a quantity between 1 byte and 4Gi.
pub fn memory_limit(text: &str) -> Result<u64, String> {
    let bytes = parse_quantity(text)?;
    if (1..=MAX_MEMORY_LIMIT).contains(&bytes) {
        Ok(bytes)
    } else {
        Err("must be between 1 and 4Gi".into())
    }
}

pub use super::limits::parse_duration;

/// Runs the module on the review `input` gives (with `settings`, which replace those in a
/// request document) and prints its response: exit 0 granted, 1 denied, 2 error.
pub fn execute(request: &Request, input: Input, settings: Option<Value>) -> i32 {
    match run(request, input, settings) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            2
        }
    }
}

fn run(args: &Request, input: Input, settings: Option<Value>) -> Result<i32, String> {
    let name = module_name(&args.module);
    let (runner, noun) = load(args)?;
    let mut call = match input {
        Input::Request { path, document } => {
            Call::from_document(document, args.protocol, args.use_case)
                .map_err(|e| format!("{}: {e}", path.display()))?
        }
        Input::Object { path, document } => {
            let review =
                review_of_object(args, document).map_err(|e| format!("{}: {e}", path.display()))?;
            Call::from_document(review, args.protocol, args.use_case)?
        }
    };
    let settings = settings.or_else(|| call.settings.take());
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
        .call(
            args.protocol,
            call.use_case.export(),
            stdin,
            &Arc::new(Host::default()),
            limits,
        )
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

fn load(args: &Request) -> Result<(Runner, &'static str), String> {
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

/// The AdmissionReview the pipeline would send for `object`.
fn review_of_object(args: &Request, object: Value) -> Result<Value, String> {
    let id = Identity::of(&object)?;
    let namespace = match KindTable::default().scope_of(&id.group, &id.kind) {
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
    let resource = crate::core::kinds::guess_plural(&id.kind);
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
        &subject, &requester, &uid, &object, None,
    )))
}
