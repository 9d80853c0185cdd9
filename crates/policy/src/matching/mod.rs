//! Which requests a policy and its bindings apply to: `spec.matchConstraints` of a
//! ValidatingAdmissionPolicy / MutatingAdmissionPolicy intersected with the binding's
//! `spec.matchResources`. Reproduces AP `pkg/admission/plugin/policy/matching/matching.go`
//! (`Matcher.Matches`, `DefinitionMatches`, `BindingMatches`) with the predicates of
//! `pkg/admission/plugin/webhook/predicates/{rules,namespace,object}`; reference:
//! `shared/reference/admission-policies.md` §1–§2.
//!
//! Offline limits: resource plural names come from the caller (no RESTMapper), and
//! `matchPolicy: Equivalent` only knows the equivalences an [`Equivalents`] table lists
//! (see `equivalence.rs`); anything else behaves as `Exact`.

mod equivalence;
mod namespace;
mod object;
mod resources;
mod rules;

#[cfg(test)]
mod tests;

pub use equivalence::{Equivalents, Table};
pub use resources::{MatchPolicy, MatchResources, NamedRule};

use kadmit_match::Gvk;
use serde_json::Value;

/// A group/version/resource (`schema.GroupVersionResource`), resource being the plural.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Gvr {
    pub group: String,
    pub version: String,
    pub resource: String,
}

impl Gvr {
    pub fn new(group: &str, version: &str, resource: &str) -> Gvr {
        Gvr {
            group: group.to_owned(),
            version: version.to_owned(),
            resource: resource.to_owned(),
        }
    }
}

/// The admission attributes matching reads (`admission.Attributes`).
#[derive(Debug, Clone, Default)]
pub struct Request<'a> {
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub operation: &'a str,
    /// The kind of the request (for a subresource, the subresource's kind, e.g. `autoscaling/v1 Scale`).
    pub kind: Gvk,
    /// The resource requested; its group may differ from `kind`'s (`apps/v1 deployments` + `scale`).
    pub resource: Gvr,
    /// `""` for the main resource.
    pub subresource: &'a str,
    /// `""` for a CREATE with `generateName`.
    pub name: &'a str,
    /// `""` for cluster-scoped resources; for a Namespace object, upstream sets it to the
    /// namespace's own name (an empty one is filled from `name` here).
    pub namespace: &'a str,
    /// Null/None on DELETE.
    pub object: Option<&'a Value>,
    /// None on CREATE.
    pub old_object: Option<&'a Value>,
    /// The Namespace document of `namespace`, when the caller has one; otherwise its labels
    /// are synthesized as `{kubernetes.io/metadata.name: <namespace>}`.
    pub namespace_object: Option<&'a Value>,
}

impl Request<'_> {
    /// The core `namespaces` resource (`namespaceResource` in `rules.go`).
    pub(crate) fn is_namespace_resource(&self) -> bool {
        self.resource.group.is_empty()
            && self.resource.version == "v1"
            && self.resource.resource == "namespaces"
    }

    /// `attr.GetNamespace()`: for a Namespace object the apiserver reports its own name.
    pub(crate) fn namespace_name(&self) -> &str {
        if self.namespace.is_empty() && self.is_namespace_resource() {
            self.name
        } else {
            self.namespace
        }
    }
}

/// What a match resolved to: the request's own resource/kind, or the equivalent one the
/// rule named (`matchPolicy: Equivalent`), to which the request is then converted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched {
    pub resource: Gvr,
    pub kind: Gvk,
}

/// Where a failed match came from: `matching.go` reports policy errors as
/// `failed to configure policy: …` and binding errors as `failed to configure binding: …`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchError {
    Policy(String),
    Binding(String),
}

/// `Matcher.Matches` for one `MatchResources` object (API defaults applied), with the
/// built-in equivalence table. `Ok(false)` is a clean non-match.
pub fn matches(constraints: &Value, request: &Request) -> Result<bool, String> {
    Ok(match_resources(constraints, request, &Table::builtin())?.is_some())
}

/// `Matcher.Matches`: decodes `constraints` with the API defaults and matches.
pub fn match_resources(
    constraints: &Value,
    request: &Request,
    equivalents: &dyn Equivalents,
) -> Result<Option<Matched>, String> {
    MatchResources::from_value(constraints)?.matches(request, equivalents)
}

/// `DefinitionMatches` then `BindingMatches` (`generic/policy_dispatcher.go`): the policy's
/// `matchConstraints` decide the matched resource/kind; a binding without `matchResources`
/// matches everything, with it both must match (its own resolution is not used).
pub fn policy_and_binding_match(
    policy_constraints: &Value,
    binding_match_resources: Option<&Value>,
    request: &Request,
    equivalents: &dyn Equivalents,
) -> Result<Option<Matched>, MatchError> {
    let Some(matched) =
        match_resources(policy_constraints, request, equivalents).map_err(MatchError::Policy)?
    else {
        return Ok(None);
    };
    match binding_match_resources.filter(|v| !v.is_null()) {
        None => Ok(Some(matched)),
        Some(binding) => Ok(match_resources(binding, request, equivalents)
            .map_err(MatchError::Binding)?
            .map(|_| matched)),
    }
}
