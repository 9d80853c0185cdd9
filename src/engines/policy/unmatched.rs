//! The policies and bindings that applied to no object of the run, for the report of
//! rules that matched no object: a binding whose `matchResources` or whose policy's
//! `matchConstraints` names a resource the stream does not have (`deployment` for
//! `deployments`), a policy nobody binds, a binding naming a policy that is not there.
//! The server accepts each of them and then does nothing; kadmit says so.

use crate::core::pipeline::Unmatched;
use kadmit_policy::compiled::Binding;

/// In dispatch order: each policy (by name) with its bindings that never applied, or
/// `(no binding)`; then the bindings of absent policies. `kind` is the policy kind
/// (`ValidatingAdmissionPolicy`), `policies` their names.
pub(super) fn unmatched<'p>(
    kind: &str,
    policies: impl Iterator<Item = &'p str>,
    bindings: &[Binding],
) -> Vec<Unmatched> {
    let mut names: Vec<&str> = policies.collect();
    names.sort_unstable();
    let rule = |text: String| Unmatched {
        rule: text,
        kinds: Vec::new(),
    };
    let mut out = Vec::new();
    for name in &names {
        let mut own = bindings
            .iter()
            .filter(|b| b.policy_name == *name)
            .peekable();
        if own.peek().is_none() {
            out.push(rule(format!("{kind} {name} (no binding)")));
        }
        out.extend(
            own.filter(|b| !b.applied.get())
                .map(|b| rule(format!("{kind} {name} (binding {})", b.name))),
        );
    }
    out.extend(
        bindings
            .iter()
            .filter(|b| names.binary_search(&b.policy_name.as_str()).is_err())
            .map(|b| {
                rule(format!(
                    "{kind} {} (binding {}: no such policy)",
                    b.policy_name, b.name
                ))
            }),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn binding(name: &str, policy: &str) -> Binding {
        Binding::from_object(&json!({"metadata": {"name": name}, "spec": {"policyName": policy}}))
    }

    #[test]
    fn policies_without_an_applied_binding_and_bindings_without_a_policy() {
        let bindings = [
            binding("a-used", "a"),
            binding("a-unused", "a"),
            binding("ghost", "missing"),
        ];
        bindings[0].applied.raise();
        let rules: Vec<String> = unmatched(
            "ValidatingAdmissionPolicy",
            ["lonely", "a"].into_iter(),
            &bindings,
        )
        .into_iter()
        .map(|u| u.rule)
        .collect();
        assert_eq!(
            rules,
            [
                "ValidatingAdmissionPolicy a (binding a-unused)",
                "ValidatingAdmissionPolicy lonely (no binding)",
                "ValidatingAdmissionPolicy missing (binding ghost: no such policy)",
            ]
        );
    }
}
