//! `kadmit module run`: run one module on one request and print its response.

use clap::Subcommand;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum ModuleCommand {
    /// Run a module on a request and print the response.
    Run {
        /// The module (`.wasm`).
        module: PathBuf,
        /// The request document (JSON or YAML).
        #[arg(long)]
        request: Option<PathBuf>,
    },
}

pub fn execute(command: ModuleCommand) -> i32 {
    match command {
        ModuleCommand::Run { module, .. } => {
            eprintln!("error: cannot run {}: not available yet", module.display());
            2
        }
    }
}
