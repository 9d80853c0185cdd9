//! The mutation system (Gatekeeper's `mutation.System`): mutators sorted by ID, schema
//! conflicts refused on upsert, and the convergence loop that re-matches every mutator
//! against the current object until a round changes nothing.

use super::conflicts::Schemas;
use super::edits::Edits;
use super::matching::Facts;
use super::mutators::{Mutator, Request};
use super::Gvk;
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};

/// The registered mutators, in Gatekeeper's order.
#[derive(Default)]
pub struct System {
    mutators: Vec<Mutator>,
    /// Whether each mutator (by index) matched any object of the run.
    matched: Vec<AtomicBool>,
    schemas: Schemas,
}

/// What a mutation request did. Mutators are named by their index in `System::mutators`.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Gatekeeper's flag: some round changed the object.
    pub mutated: bool,
    /// Each change: the mutator that made it and the JSON Pointer it changed, in order.
    pub changes: Vec<(usize, String)>,
    /// Every mutator that reported a mutation in a round that changed the object (the
    /// `gatekeeper.sh/mutations` annotation).
    pub applied: BTreeSet<usize>,
}

impl System {
    pub fn new() -> System {
        System::default()
    }

    pub fn len(&self) -> usize {
        self.mutators.len()
    }

    pub fn is_empty(&self) -> bool {
        self.mutators.is_empty()
    }

    pub fn mutators(&self) -> &[Mutator] {
        &self.mutators
    }

    /// Registers a mutator, replacing one with the same ID; refuses schema conflicts.
    pub fn upsert(&mut self, mutator: Mutator) -> Result<(), String> {
        self.schemas.upsert(&mutator)?;
        self.mutators.retain(|m| m.id != mutator.id);
        let at = self.mutators.partition_point(|m| m.id < mutator.id);
        self.mutators.insert(at, mutator);
        self.matched
            .resize_with(self.mutators.len(), AtomicBool::default);
        Ok(())
    }

    /// Whether the mutator at `index` has matched any object so far.
    pub fn has_matched(&self, index: usize) -> bool {
        self.matched[index].load(Ordering::Relaxed)
    }

    /// Runs the convergence loop on `object` in place. On error the object keeps the
    /// edits made before it, as Gatekeeper's does; callers discard it.
    pub fn mutate(
        &self,
        object: &mut Value,
        namespace: Option<&Value>,
        source: &str,
        operation: &str,
    ) -> Result<Outcome, String> {
        let mut outcome = Outcome::default();
        let mut facts = Facts::of(object, namespace);
        let mut applies = self.applying(&facts.gvk, operation);
        let mut edits = Edits::default();
        // Each mutator's `match` outcome from an earlier round, kept when it reads nothing
        // of the object a round can change (`Match::reads_object`: facts are fixed while
        // the object is mutated); forgotten when the GVK changes.
        let mut known = vec![None; self.mutators.len()];
        let rounds = self.mutators.len() + 1;
        for round in 1..=rounds {
            let mut applied = Vec::new();
            for (index, mutator) in self.mutators.iter().enumerate() {
                if !applies[index] {
                    continue;
                }
                let request = Request {
                    object,
                    namespace,
                    source,
                    facts: &facts,
                };
                let matches = match known[index] {
                    Some(matches) => matches,
                    None => {
                        let matches = mutator.matches(&request).map_err(|e| {
                            format!(
                                "matching for mutator {} failed for {}: {e}",
                                mutator.id,
                                describe(object)
                            )
                        })?;
                        if !mutator.matcher.reads_object() {
                            known[index] = Some(matches);
                        }
                        matches
                    }
                };
                if !matches {
                    continue;
                }
                self.matched[index].store(true, Ordering::Relaxed);
                let mutated = mutator.mutate(object, &mut edits).map_err(|e| {
                    format!(
                        "mutation for mutator {} failed for {}: {e}",
                        mutator.id,
                        describe(object)
                    )
                })?;
                if mutated {
                    applied.push(index);
                    let paths = edits.take_paths().map(|path| (index, path));
                    outcome.changes.extend(paths);
                    if mutator.may_change_gvk() {
                        facts.refresh_gvk(object);
                        applies = self.applying(&facts.gvk, operation);
                        known.fill(None);
                    }
                }
            }
            if applied.is_empty() || !edits.round_changed(object) {
                outcome.mutated = round > 1;
                return Ok(outcome);
            }
            outcome.applied.extend(applied);
        }
        let still_changing: BTreeSet<String> = outcome
            .changes
            .iter()
            .map(|(index, _)| self.mutators[*index].id.to_string())
            .collect();
        Err(format!(
            "mutation not converging for {} after {rounds} rounds (mutators still changing it: {})",
            describe(object),
            still_changing.into_iter().collect::<Vec<_>>().join(", ")
        ))
    }

    /// Which mutators' `applyTo` covers an object of `gvk` (fixed while it is mutated,
    /// unless an Assign sets `apiVersion` or `kind`).
    fn applying(&self, gvk: &Gvk, operation: &str) -> Vec<bool> {
        self.mutators
            .iter()
            .map(|m| m.applies_to(gvk, operation))
            .collect()
    }
}

/// `<group> <kind> <namespace> <name>` as Gatekeeper's errors name an object (the name
/// falls back to `generateName`; an empty group leaves a double space).
fn describe(object: &Value) -> String {
    let gvk = super::Gvk::of(object);
    let metadata = |key: &str| {
        object
            .get("metadata")
            .and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    let name = match metadata("name") {
        "" => metadata("generateName"),
        name => name,
    };
    format!(
        "{} {} {} {name}",
        gvk.group,
        gvk.kind,
        metadata("namespace")
    )
}
