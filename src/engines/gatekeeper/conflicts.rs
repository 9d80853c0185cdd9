//! Schema conflicts (Gatekeeper's `pkg/mutation/schema`): two mutators that apply to the
//! same GVK and operation may not disagree on what a path holds — an object here and a
//! list there, two key fields for one list, a set and a string, or a path continuing past
//! a location that must stay a leaf (AssignImage).

use super::mutators::{Mutator, MutatorId, Terminal};
use super::path::{Node, Path};
use super::Gvk;
use std::collections::BTreeSet;

/// What one node of a path holds, from the next node or the mutator's terminal type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    Object,
    List,
    Terminal(Terminal),
}

struct Entry {
    id: MutatorId,
    bindings: BTreeSet<(Gvk, &'static str)>,
    path: Path,
    terminal: Terminal,
    must_terminate: bool,
}

/// The paths of the mutators upserted so far.
#[derive(Default)]
pub struct Schemas {
    entries: Vec<Entry>,
}

impl Schemas {
    /// Adds (or replaces) a mutator's schema; `Err` names every mutator it conflicts with,
    /// as Gatekeeper's `Upsert` does.
    pub fn upsert(&mut self, mutator: &Mutator) -> Result<(), String> {
        self.entries.retain(|e| e.id != mutator.id);
        let Some(terminal) = mutator.terminal() else {
            return Ok(());
        };
        let entry = Entry {
            id: mutator.id.clone(),
            bindings: bindings(mutator),
            path: mutator.path.clone(),
            terminal,
            must_terminate: mutator.must_terminate(),
        };
        let mut conflicting: Vec<String> = self
            .entries
            .iter()
            .filter(|other| !other.bindings.is_disjoint(&entry.bindings))
            .filter(|other| conflict(&entry, other) || conflict(other, &entry))
            .map(|other| other.id.to_string())
            .collect();
        if !conflicting.is_empty() {
            conflicting.push(entry.id.to_string());
            conflicting.sort();
            return Err(format!(
                "the following mutators have conflicting schemas: [{}]",
                conflicting.join(",")
            ));
        }
        self.entries.push(entry);
        Ok(())
    }
}

/// Every (GVK, operation) the mutator's `applyTo` covers.
fn bindings(mutator: &Mutator) -> BTreeSet<(Gvk, &'static str)> {
    let mut out = BTreeSet::new();
    for entry in mutator.apply_to.iter().flatten() {
        for group in &entry.groups {
            for version in &entry.versions {
                for kind in &entry.kinds {
                    for operation in entry.effective_operations() {
                        let gvk = Gvk {
                            group: group.clone(),
                            version: version.clone(),
                            kind: kind.clone(),
                        };
                        out.insert((gvk, operation));
                    }
                }
            }
        }
    }
    out
}

/// Whether `a` and `b` disagree somewhere along their common prefix (checked from `a`'s
/// side for must-terminate; call both ways).
fn conflict(a: &Entry, b: &Entry) -> bool {
    for (i, (x, y)) in a.path.nodes.iter().zip(&b.path.nodes).enumerate() {
        let same = match (x, y) {
            (Node::Object(p), Node::Object(q)) => p == q,
            (Node::List { key_field: p, .. }, Node::List { key_field: q, .. }) if p != q => {
                return true
            }
            (Node::List { .. }, Node::List { .. }) => true,
            _ => false,
        };
        if !same {
            return false;
        }
        let (held_a, held_b) = (held(a, i), held(b, i));
        if !compatible(held_a, held_b) {
            return true;
        }
        let a_ends = i + 1 == a.path.nodes.len();
        let b_ends = i + 1 == b.path.nodes.len();
        if a_ends && !b_ends && a.must_terminate {
            return true;
        }
        if a_ends || b_ends {
            return false;
        }
    }
    false
}

fn held(entry: &Entry, i: usize) -> Held {
    match entry.path.nodes.get(i + 1) {
        Some(Node::Object(_)) => Held::Object,
        Some(Node::List { .. }) => Held::List,
        None => Held::Terminal(entry.terminal),
    }
}

/// `Unknown` (Assign) agrees with everything; any two other types must be the same.
fn compatible(a: Held, b: Held) -> bool {
    a == b || a == Held::Terminal(Terminal::Unknown) || b == Held::Terminal(Terminal::Unknown)
}
