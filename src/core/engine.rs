//! The one interface every engine implements. `run` builds each engine once from the run's
//! options (the engine's own settings, nothing else), then hands every engine the same
//! classified configuration; the engine compiles the items of its own family into pipeline
//! stages and reports every unusable item, not just the first.

use super::config::{ConfigItem, Family};
use super::diagnostic::Diagnostic;
use super::pipeline::Pipeline;
use super::resource::{Identity, Origin, Resource};
use serde_json::Value;
use std::sync::Arc;

/// The configuration of a run, classified once at intake.
pub struct Configuration<'a> {
    /// Every configuration item, in input order, each with its family.
    pub items: &'a [&'a ConfigItem],
    /// The CustomResourceDefinitions of the run (stream, `--config` and `--crd`).
    pub crds: &'a [CrdDocument],
}

/// A CustomResourceDefinition of the run. Its document is shared by every engine that
/// keeps it (one `Arc`): a CRD set is megabytes, read on every run, and mostly unused.
#[derive(Debug, Clone)]
pub struct CrdDocument {
    pub value: Arc<Value>,
    pub id: Identity,
    pub origin: Origin,
}

impl CrdDocument {
    /// Takes the resource's document over, without copying it.
    pub fn of(resource: Resource) -> CrdDocument {
        CrdDocument {
            value: Arc::new(resource.value),
            id: resource.id,
            origin: resource.origin,
        }
    }
}

impl<'a> Configuration<'a> {
    /// The items of one family, in input order.
    pub fn of(&self, family: Family) -> Vec<&'a ConfigItem> {
        self.items
            .iter()
            .copied()
            .filter(|item| item.family == Some(family))
            .collect()
    }
}

/// An admission engine: compiles its configuration into pipeline stages.
pub trait Engine {
    /// Adds this engine's stages to `pipeline`; the diagnostics are configuration problems
    /// (and warnings) with the item they concern.
    fn compile(&mut self, config: &Configuration<'_>, pipeline: &mut Pipeline) -> Vec<Diagnostic>;
}
