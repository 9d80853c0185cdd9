//! `kadmit module run`'s arguments: argv and the documents it names are read here, at the
//! edge, and handed to the module engine's [`tool`] as plain values.

use super::OperationArg;
use crate::core::decode::decode_all;
use crate::engines::module::harness::UseCase;
use crate::engines::module::spec::Protocol;
use crate::engines::module::tool::{self, Input};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, clap::Subcommand)]
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
    #[arg(
        long,
        default_value = "k8s-wasi",
        value_parser = PossibleValuesParser::new(Protocol::ALL.map(Protocol::name))
            .map(|name| Protocol::from_name(&name).expect("a listed protocol"))
    )]
    pub protocol: Protocol,
    /// The use case (default: from the request's kind).
    #[arg(
        long,
        value_parser = PossibleValuesParser::new(UseCase::ALL.map(UseCase::export))
            .map(|name| UseCase::from_name(&name).expect("a listed use case"))
    )]
    pub use_case: Option<UseCase>,
    /// Stop the module after this long (a Go duration).
    #[arg(long, default_value = "1s", value_parser = tool::parse_duration)]
    pub timeout: std::time::Duration,
    /// The most memory the module may use (a quantity).
    #[arg(long, default_value = "64Mi", value_parser = tool::memory_limit)]
    pub memory_limit: u64,
    /// MODULE is a program speaking the same protocol on stdin/stdout (argv: MODULE ARGS... USE-CASE).
    #[arg(long)]
    pub exec: bool,
    /// With --object: the admission operation.
    #[arg(long, value_enum, default_value = "CREATE")]
    pub operation: OperationArg,
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

/// Reads the documents the arguments name and runs the module: the process exit code.
pub fn execute(command: ModuleCommand) -> i32 {
    let ModuleCommand::Run(args) = command;
    let read = || -> Result<(Input, Option<Value>), String> {
        let input = match (args.request.clone(), args.object.clone()) {
            (Some(path), _) => Input::Request {
                document: read_document(&path)?,
                path,
            },
            (None, Some(path)) => Input::Object {
                document: read_document(&path)?,
                path,
            },
            (None, None) => unreachable!("clap requires --request or --object"),
        };
        let settings = args.settings.as_deref().map(read_document).transpose()?;
        Ok((input, settings))
    };
    let (input, settings) = match read() {
        Ok(read) => read,
        Err(message) => {
            eprintln!("error: {message}");
            return 2;
        }
    };
    let request = tool::Request {
        module: args.module,
        args: args.args,
        protocol: args.protocol,
        use_case: args.use_case,
        timeout: args.timeout,
        memory_limit: args.memory_limit,
        exec: args.exec,
        operation: args.operation.into(),
        user: args.user,
        group: args.group,
        namespace: args.namespace,
    };
    tool::execute(&request, input, settings)
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
