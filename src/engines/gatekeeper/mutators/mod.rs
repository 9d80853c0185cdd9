//! The four Gatekeeper mutators, built from their YAML the way Gatekeeper's
//! `MutatorFor*` constructors build them (same checks, same order, same messages).

mod assign;
mod assign_image;
mod assign_metadata;
mod modify_set;
mod spec;

use super::apply_to::{self, ApplyTo};
use super::edits::Edits;
use super::matching::{Facts, Match, Target};
use super::path::tester::Tester;
use super::path::{Node, Path};
use super::walk;
use super::Gvk;
use serde_json::Value;
use std::fmt;

/// The API group every Gatekeeper mutator belongs to, whatever version it was written in.
pub const GROUP: &str = "mutations.gatekeeper.sh";

/// Gatekeeper's mutator ID; mutators run sorted by it (group, kind, namespace, name).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MutatorId {
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

impl fmt::Display for MutatorId {
    /// `Assign.mutations.gatekeeper.sh /name`: GroupKind, a space, namespace/name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{GROUP} {}/{}", self.kind, self.namespace, self.name)
    }
}

/// What the mutator writes at its location; schema conflicts compare these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Terminal {
    Unknown,
    Set,
    String,
}

enum Action {
    Assign(assign::Assign),
    AssignMetadata(assign_metadata::AssignMetadata),
    ModifySet(modify_set::ModifySet),
    AssignImage(assign_image::AssignImage),
}

/// A validated mutator, ready to match and mutate objects.
pub struct Mutator {
    pub id: MutatorId,
    /// `metadata.generation` for the `gatekeeper.sh/mutations` annotation; 1 (what the API
    /// server gives a new object) when absent.
    pub generation: i64,
    /// `None` for AssignMetadata, which has no `applyTo`.
    pub apply_to: Option<Vec<ApplyTo>>,
    pub matcher: Match,
    pub path: Path,
    /// `walk::tokens(&path)`.
    tokens: Vec<String>,
    tester: Tester,
    action: Action,
}

/// Where a mutator is asked to match: the object and what Gatekeeper knows besides it.
pub struct Request<'a> {
    pub object: &'a Value,
    /// The object's Namespace object, when there is one.
    pub namespace: Option<&'a Value>,
    /// `Original`, `Generated`, or `""`.
    pub source: &'a str,
    /// What matching reads from `object` and `namespace` (`Facts::of`).
    pub facts: &'a Facts,
}

impl Mutator {
    /// Builds a mutator from its YAML; `Err` is Gatekeeper's validation message.
    pub fn from_value(value: &Value) -> Result<Mutator, String> {
        let kind = value.get("kind").and_then(Value::as_str).unwrap_or("");
        let id = MutatorId {
            kind: kind.to_owned(),
            namespace: spec::string_at(value, &["metadata", "namespace"]).to_owned(),
            name: spec::string_at(value, &["metadata", "name"]).to_owned(),
        };
        if id.name.len() > 63 {
            return Err("maximum name length is 63 characters".into());
        }
        let generation = value
            .pointer("/metadata/generation")
            .and_then(Value::as_i64)
            .unwrap_or(1);
        let spec = value.get("spec").cloned().unwrap_or(Value::Null);
        let built = match kind {
            "Assign" => assign::build(&id.name, &spec)?,
            "AssignMetadata" => assign_metadata::build(&id.name, &spec)?,
            "ModifySet" => modify_set::build(&id.name, &spec)?,
            "AssignImage" => assign_image::build(&id.name, &spec)?,
            other => return Err(format!("{other} is not a Gatekeeper mutator kind")),
        };
        let matcher = Match::from_spec(spec.get("match"))
            .map_err(|e| format!("invalid match for {kind} {}: {e}", id.name))?;
        Ok(Mutator {
            id,
            generation,
            apply_to: built.apply_to,
            matcher,
            tokens: walk::tokens(&built.path),
            path: built.path,
            tester: built.tester,
            action: built.action,
        })
    }

    /// Whether `applyTo` covers the GVK and the operation (`CREATE`, `UPDATE`, or `""` for
    /// none, as gator and expansion pass). AssignMetadata has no `applyTo`.
    pub fn applies_to(&self, gvk: &Gvk, operation: &str) -> bool {
        self.apply_to
            .as_ref()
            .is_none_or(|entries| apply_to::matches(entries, gvk, operation))
    }

    /// Whether the `match` block matches; Gatekeeper asks only when `applies_to`.
    pub fn matches(&self, request: &Request) -> Result<bool, String> {
        let target = Target {
            object: request.object,
            namespace: request.namespace,
            source: request.source,
        };
        self.matcher.matches_with(&target, request.facts)
    }

    /// Applies the mutator in place, recording what it changes in `edits`; `Ok(true)` when
    /// its setter ran.
    pub fn mutate(&self, object: &mut Value, edits: &mut Edits) -> Result<bool, String> {
        let walk = |setter: &dyn walk::Setter, object: &mut Value, edits: &mut Edits| {
            walk::mutate(
                &self.path,
                &self.tokens,
                &self.tester,
                setter,
                object,
                edits,
            )
        };
        match &self.action {
            Action::Assign(a) => walk(&a.setter(object), object, edits),
            Action::AssignMetadata(a) => walk(&a.setter(object), object, edits),
            Action::ModifySet(m) => walk(m, object, edits),
            Action::AssignImage(a) => walk(a, object, edits),
        }
    }

    /// Whether mutating may change the object's `apiVersion` or `kind`: only a location
    /// starting at one of them can (AssignMetadata's starts at `metadata`).
    pub fn may_change_gvk(&self) -> bool {
        let first = self.path.nodes.first();
        matches!(first, Some(Node::Object(key)) if key == "apiVersion" || key == "kind")
    }

    /// The type of what the mutator writes, or `None` when it takes no part in schemas.
    pub fn terminal(&self) -> Option<Terminal> {
        match &self.action {
            Action::Assign(_) => Some(Terminal::Unknown),
            Action::AssignMetadata(_) => None,
            Action::ModifySet(_) => Some(Terminal::Set),
            Action::AssignImage(_) => Some(Terminal::String),
        }
    }

    /// Whether nothing may extend a path beyond this mutator's location.
    pub fn must_terminate(&self) -> bool {
        matches!(self.action, Action::AssignImage(_))
    }
}

/// What a kind-specific constructor returns.
struct Built {
    apply_to: Option<Vec<ApplyTo>>,
    path: Path,
    tester: Tester,
    action: Action,
}

/// Checks shared by Assign, ModifySet and AssignImage after their own: path tests, then
/// `applyTo`.
fn tests_and_apply_to(
    kind: &str,
    name: &str,
    spec: &Value,
    path: &Path,
) -> Result<(Tester, Vec<ApplyTo>), String> {
    let tester = Tester::from_spec(path, spec.pointer("/parameters/pathTests"), kind, name)?;
    let entries = apply_to::from_spec(spec.get("applyTo"))
        .map_err(|e| format!("invalid applyTo for {kind} mutator {name}: {e}"))?;
    apply_to::validate(&entries, kind, name)?;
    Ok((tester, entries))
}

/// Gatekeeper's `CheckKeyNotChanged`: a location may not end in the key of its own list
/// (`containers[name: foo].name`).
fn check_key_not_changed(path: &Path) -> Result<(), String> {
    let n = path.nodes.len();
    if n == 0 {
        return Err("empty path".into());
    }
    if n >= 2 {
        if let (Node::List { key_field, .. }, Node::Object(last)) =
            (&path.nodes[n - 2], &path.nodes[n - 1])
        {
            if key_field == last {
                return Err("invalid path format: changing the item key is not allowed".into());
            }
        }
    }
    Ok(())
}

/// Whether a location starts at `metadata`, which only AssignMetadata may change.
fn starts_at_metadata(path: &Path) -> bool {
    matches!(path.nodes.first(), Some(Node::Object(first)) if first == "metadata")
}
