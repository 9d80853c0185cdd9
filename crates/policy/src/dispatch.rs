//! The dispatch loop shared by VAP and MAP (AP `generic/policy_dispatcher.go`, the
//! `Dispatch` loops of `validating/dispatcher.go` and `mutating/dispatcher.go`): for each
//! policy, match `matchConstraints`; for each of its bindings, match `matchResources`;
//! collect the params. The result is a list of [`Step`]s in a stable order (policy
//! name, then binding name, then param order); upstream has no defined order between
//! policies.
//!
//! Policies never apply to the four admission policy kinds themselves; a policy without a
//! binding, and a binding whose policy is absent, do nothing.

use crate::compiled::{Binding, ParamKind, Policy};
use crate::matching::{Equivalents, Matched, Request};
use crate::params::{collect_params_in, ParamScope, ParamSource};
use serde_json::Value;
use std::borrow::Cow;

/// One step of the dispatch.
#[derive(Debug)]
pub enum Step<'p, P> {
    /// A configuration error (`addConfigError`): `binding` is `None` for a policy-level
    /// one. `message` is already worded `failed to configure policy|binding: …`.
    ConfigError {
        policy: &'p P,
        binding: Option<&'p Binding>,
        message: String,
    },
    /// A matching (policy, binding): one invocation per entry of `params` (none at all when
    /// nothing was found and `parameterNotFoundAction` is `Allow`).
    Invoke {
        policy: &'p P,
        binding: &'p Binding,
        matched: Matched,
        params: Vec<Option<Cow<'p, Value>>>,
    },
}

impl<P: Policy> Step<'_, P> {
    /// The policy's name.
    pub fn policy_name(&self) -> &str {
        match self {
            Step::ConfigError { policy, .. } | Step::Invoke { policy, .. } => &policy.core().name,
        }
    }
}

const EXEMPT: [&str; 4] = [
    "validatingadmissionpolicies",
    "validatingadmissionpolicybindings",
    "mutatingadmissionpolicies",
    "mutatingadmissionpolicybindings",
];

/// Whether the request is for one of the policy kinds (never subject to policies).
pub fn is_exempt(request: &Request) -> bool {
    request.resource.group == "admissionregistration.k8s.io"
        && EXEMPT.contains(&request.resource.resource.as_str())
}

/// Plans the dispatch of `request` over `policies` and `bindings`.
pub fn plan<'p, P: Policy>(
    policies: &'p [P],
    bindings: &'p [Binding],
    request: &Request,
    equivalents: &dyn Equivalents,
    params: &'p dyn ParamSource,
) -> Vec<Step<'p, P>> {
    let mut steps = Vec::with_capacity(bindings.len());
    if is_exempt(request) {
        return steps;
    }
    // The scope of each param kind, asked of the source once per request.
    let mut scopes: Vec<(ParamKind, Option<ParamScope>)> = Vec::new();
    let mut scope_of = |kind: &ParamKind| match scopes.iter().find(|(k, _)| k == kind) {
        Some((_, scope)) => *scope,
        None => {
            let scope = params.scope(&kind.api_version, &kind.kind);
            scopes.push((kind.clone(), scope));
            scope
        }
    };
    let ordered = by_name(policies, |p| &p.core().name);
    let bindings = by_policy(bindings);
    for policy in ordered {
        let core = policy.core();
        // The policy's bindings, contiguous and in name order.
        let first = bindings.partition_point(|b| b.policy_name < core.name);
        let count = bindings[first..].partition_point(|b| b.policy_name == core.name);
        if count == 0 {
            continue;
        }
        let own = bindings[first..first + count].iter().copied();
        let mut matched = match core.matcher.matches(request, equivalents) {
            Err(e) => {
                steps.push(Step::ConfigError {
                    policy,
                    binding: None,
                    message: format!("failed to configure policy: {e}"),
                });
                continue;
            }
            Ok(None) => continue,
            Ok(Some(m)) => Some(m),
        };
        let last = count - 1;
        for (index, binding) in own.enumerate() {
            if let Some(matcher) = &binding.matcher {
                match matcher.matches(request, equivalents) {
                    Err(e) => {
                        steps.push(Step::ConfigError {
                            policy,
                            binding: Some(binding),
                            message: format!("failed to configure binding: {e}"),
                        });
                        continue;
                    }
                    Ok(None) => continue,
                    Ok(Some(_)) => {}
                }
            }
            binding.applied.raise();
            match collect_params_in(core, binding, request.namespace, params, &mut scope_of) {
                Err(e) => steps.push(Step::ConfigError {
                    policy,
                    binding: Some(binding),
                    message: format!("failed to configure binding: {e}"),
                }),
                Ok(found) => steps.push(Step::Invoke {
                    policy,
                    binding,
                    // The policy's last binding takes the match itself (most policies have
                    // one), the others a copy.
                    matched: if index == last {
                        matched.take()
                    } else {
                        matched.clone()
                    }
                    .expect("only the last binding takes the match"),
                    params: found,
                }),
            }
        }
    }
    steps
}

/// `items` ordered by name, stably. The engine sorts its policies and bindings once when it
/// compiles them ([`sort_by_name`]), so per request this is only the check that they are.
fn by_name<T>(items: &[T], name: impl Fn(&T) -> &str) -> Vec<&T> {
    let mut ordered: Vec<&T> = items.iter().collect();
    if !ordered.is_sorted_by_key(|item| name(item)) {
        ordered.sort_by(|a, b| name(a).cmp(name(b)));
    }
    ordered
}

/// `bindings` ordered by policy name, then by name, stably: each policy's bindings in the
/// order [`plan`] dispatches them, next to each other. As with [`by_name`], per request
/// this is only the check that they are.
fn by_policy(bindings: &[Binding]) -> Vec<&Binding> {
    fn key(b: &Binding) -> (&str, &str) {
        (&b.policy_name, &b.name)
    }
    let mut ordered: Vec<&Binding> = bindings.iter().collect();
    if !ordered.is_sorted_by_key(|b| key(b)) {
        ordered.sort_by(|a, b| key(a).cmp(&key(b)));
    }
    ordered
}

/// Sorts policies by name and bindings by policy name, then by name, stably, in the order
/// [`plan`] dispatches them: done once at compile, it saves [`plan`] sorting them for
/// every request.
pub fn sort_by_name<P: Policy>(policies: &mut [P], bindings: &mut [Binding]) {
    policies.sort_by(|a, b| a.core().name.cmp(&b.core().name));
    bindings.sort_by(|a, b| (&a.policy_name, &a.name).cmp(&(&b.policy_name, &b.name)));
}
