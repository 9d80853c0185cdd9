//! Admission modules: WebAssembly (k8s-wasi, Kubewarden WASI) and exec modules that
//! answer admission requests as JSON over stdin/stdout.

pub mod cli;

use crate::config::ConfigItem;
use crate::diagnostic::Diagnostic;
use crate::pipeline::Pipeline;
use crate::run::Options;

/// Compiles every `AdmissionModule` into the mutating and validating phases.
pub fn compile(
    items: &[&ConfigItem],
    _options: &Options,
    _pipeline: &mut Pipeline,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for item in items {
        diagnostics.push(
            Diagnostic::config("AdmissionModule is not available yet")
                .with_rule(item.resource.id.to_string())
                .with_origin(&item.resource.origin),
        );
    }
}
