//! Rule matching: `rules.Matcher` (AP `pkg/admission/plugin/webhook/predicates/rules/rules.go`)
//! and `matchesResourceRules` (AP `pkg/admission/plugin/policy/matching/matching.go`).

use super::equivalence::Equivalents;
use super::resources::{MatchPolicy, NamedRule};
use super::{Gvr, Matched, Request};

/// `rules.Matcher.Matches`: scope, operation, group, version and resource all hold.
pub(crate) fn rule_matches(rule: &NamedRule, request: &Request, resource: &Gvr) -> bool {
    scope(rule, request)
        && exact_or_wildcard(&rule.operations, request.operation)
        && exact_or_wildcard(&rule.api_groups, &resource.group)
        && exact_or_wildcard(&rule.api_versions, &resource.version)
        && resource_matches(&rule.resources, &resource.resource, request.subresource)
}

/// `exactOrWildcard`: an empty list matches nothing.
fn exact_or_wildcard(items: &[String], requested: &str) -> bool {
    items.iter().any(|item| item == "*" || item == requested)
}

/// `Matcher.resource`: each entry splits at the first `/` into resource and subresource
/// (`*`, `pods`, `pods/status`, `*/status`, `pods/*`, `*/*`); an entry without `/` has the
/// subresource `""`, so it never matches a subresource request; a `*` subresource also
/// accepts `""`, so `pods/*` matches pods itself as well.
fn resource_matches(entries: &[String], resource: &str, subresource: &str) -> bool {
    entries.iter().any(|entry| {
        let (res, sub) = entry.split_once('/').unwrap_or((entry, ""));
        (res == "*" || res == resource) && (sub == "*" || sub == subresource)
    })
}

/// `Matcher.scope`: decided by the request's namespace being empty (a Namespace object is
/// cluster-scoped although `attr.GetNamespace()` carries its name). Unknown scopes match nothing.
fn scope(rule: &NamedRule, request: &Request) -> bool {
    match rule.scope.as_deref() {
        None | Some("*") => true,
        Some("Namespaced") => !request.is_namespace_resource() && !request.namespace.is_empty(),
        Some("Cluster") => request.is_namespace_resource() || request.namespace.is_empty(),
        Some(_) => false,
    }
}

/// `resourceNames`: an empty list matches any name, else the request's name must be listed
/// (a CREATE with `generateName` has no name yet, so it never matches).
fn name_matches(rule: &NamedRule, request: &Request) -> bool {
    rule.resource_names.is_empty() || rule.resource_names.iter().any(|n| n == request.name)
}

/// `matchesResourceRules`: first every rule against the request as it is; then, under
/// `Equivalent`, every rule against each equivalent resource in the table's order (the
/// request's own resource skipped), the match reporting the equivalent and its kind.
pub(crate) fn matches_resource_rules(
    rules: &[NamedRule],
    policy: MatchPolicy,
    request: &Request,
    equivalents: &dyn Equivalents,
) -> Result<Option<Matched>, String> {
    for rule in rules {
        if rule_matches(rule, request, &request.resource) && name_matches(rule, request) {
            return Ok(Some(Matched {
                resource: request.resource.clone(),
                kind: request.kind.clone(),
            }));
        }
    }
    if policy == MatchPolicy::Exact {
        return Ok(None);
    }
    let candidates = equivalents.equivalent_resources(&request.resource, request.subresource);
    for rule in rules {
        for equivalent in candidates.iter().filter(|e| **e != request.resource) {
            if !rule_matches(rule, request, equivalent) {
                continue;
            }
            // Upstream takes the kind before looking at names: an unknown kind errors even
            // when the names would not match.
            let Some(kind) = equivalents.kind_for(equivalent, request.subresource) else {
                return Err(format!(
                    "unable to convert to {}/{}, Resource={}: unknown kind", // GroupVersionResource.String()
                    equivalent.group, equivalent.version, equivalent.resource
                ));
            };
            if name_matches(rule, request) {
                return Ok(Some(Matched {
                    resource: equivalent.clone(),
                    kind,
                }));
            }
        }
    }
    Ok(None)
}
