//! KubeMod ModRules, client-side: the `select` language, matching, patches with `#N`
//! placeholders and Go templates, Reject rules, tiers and scope.

pub mod matching;
pub mod patching;
pub mod rule;
pub mod select;
pub mod stages;
pub mod store;
pub mod value;

use crate::core::config::Family;
use crate::core::diagnostic::Diagnostic;
use crate::core::engine::{Configuration, Engine};
use crate::core::pipeline::Pipeline;

/// The KubeMod engine: ModRules into a patching (mutating) and a rejecting (validating)
/// stage.
pub struct KubeMod {
    pub settings: stages::Settings,
}

impl Engine for KubeMod {
    fn compile(&mut self, config: &Configuration<'_>, pipeline: &mut Pipeline) -> Vec<Diagnostic> {
        match stages::build(&config.of(Family::KubeMod), &self.settings) {
            Ok(stages) => {
                pipeline.mutating.extend(stages.patcher);
                pipeline.validating.extend(stages.rejecter);
                Vec::new()
            }
            Err(problems) => problems,
        }
    }
}
