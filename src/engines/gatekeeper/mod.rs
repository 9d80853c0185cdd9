//! OPA Gatekeeper's mutation webhook and `gator expand`, client-side: location paths,
//! the shared path walk, the four mutators, match blocks, the convergence loop, schema
//! conflicts and ExpansionTemplates. Reference: `../shared/reference/gatekeeper.md`.

pub mod conflicts;
mod edits;
pub mod expander;
pub mod expansion;
pub mod image;
pub mod mutators;
pub mod path;
pub mod stage;
pub mod system;
mod walk;

pub use kadmit_match::{apply_to, matching, values, Gvk};

use crate::core::config::Family;
use crate::core::diagnostic::Diagnostic;
use crate::core::engine::{Configuration, Engine};
use crate::core::pipeline::Pipeline;
use std::sync::Arc;

/// The Gatekeeper engine: the mutators as one mutating stage and, when `expand` is set
/// (`kadmit generate`), the expansion of every resource through the ExpansionTemplates
/// (mutated by the same system, as `Generated`).
pub struct Gatekeeper {
    pub settings: stage::Settings,
    /// Whether ExpansionTemplates expand (`kadmit generate`, as `gator expand`).
    pub expand: bool,
}

impl Engine for Gatekeeper {
    fn compile(&mut self, config: &Configuration<'_>, pipeline: &mut Pipeline) -> Vec<Diagnostic> {
        let system = match stage::build_system(&config.of(Family::GatekeeperMutation)) {
            Ok(system) => Arc::new(system),
            Err(problems) => return problems,
        };
        pipeline
            .mutating
            .extend(stage::stage(system.clone(), &self.settings));
        let templates = config.of(Family::GatekeeperExpansion);
        if templates.is_empty() {
            return Vec::new();
        }
        if !self.expand {
            return templates
                .iter()
                .map(|item| {
                    Diagnostic::warning(
                        "ExpansionTemplates act only in `kadmit generate` (as `gator expand`); this one is ignored here",
                    )
                    .with_rule(item.resource.id.to_string())
                    .with_origin(&item.resource.origin)
                })
                .collect();
        }
        match expander::build_templates(&templates) {
            Ok(templates) => {
                pipeline.expander =
                    Some(Box::new(expander::TemplateExpander { templates, system }));
                Vec::new()
            }
            Err(problems) => problems,
        }
    }
}
