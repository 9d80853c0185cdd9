//! `matchConditions` of an invocation (AP `webhook/matchconditions/matcher.go`, reference
//! §3): evaluated in order with their own budget; the first `false` skips the invocation
//! (even after errors); errors without a `false` go to the failurePolicy.

use crate::compiled::{FailurePolicy, PolicyCore, RunError, OUT_OF_BUDGET};
use kadmit_schema::cel::expression::{Activation, Invocation};
use serde_json::Value;

/// `RuntimeCELCostBudgetMatchConditions`.
pub const MATCH_CONDITIONS_BUDGET: u64 = 2_500_000;

/// What the matchConditions decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConditionsResult {
    /// No condition false and no error (or no conditions): evaluate the policy.
    Matches,
    /// Skip the invocation: `condition` is the name of the first false one (`None` when
    /// errors were ignored under `failurePolicy: Ignore`).
    NotMatched { condition: Option<String> },
    /// An error under `failurePolicy: Fail`: the aggregate of the conditions' errors.
    Error(String),
}

/// `utilerrors.NewAggregate(errs).Error()`: one message as is, several deduplicated and
/// joined as `[a, b]`.
pub fn aggregate(errors: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for e in errors {
        if !seen.contains(&e.as_str()) {
            seen.push(e);
        }
    }
    match seen.as_slice() {
        [one] => (*one).to_owned(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// `matcher.Match` for `policy`'s conditions. `activation` is the invocation's, with
/// `namespaceObject` null (the matcher passes no namespace).
pub fn evaluate(policy: &PolicyCore, activation: &Activation) -> ConditionsResult {
    if policy.match_conditions.is_empty() {
        return ConditionsResult::Matches;
    }
    let mut invocation = Invocation::new(activation, &[], MATCH_CONDITIONS_BUDGET);
    let mut errors = Vec::new();
    for condition in &policy.match_conditions {
        match condition.expression.run(&mut invocation, policy) {
            Ok(Value::Bool(false)) => {
                return ConditionsResult::NotMatched {
                    condition: Some(condition.name.clone()),
                }
            }
            Ok(_) => {}
            Err(RunError::OutOfBudget) => {
                // The filter fails as a whole.
                return match &policy.failure_policy {
                    FailurePolicy::Fail => ConditionsResult::Error(OUT_OF_BUDGET.to_owned()),
                    FailurePolicy::Ignore => ConditionsResult::NotMatched { condition: None },
                    FailurePolicy::Other(_) => ConditionsResult::Error("invalid FailPolicy".into()),
                };
            }
            Err(RunError::Failed(e)) => errors.push(e),
        }
    }
    if errors.is_empty() {
        return ConditionsResult::Matches;
    }
    match &policy.failure_policy {
        FailurePolicy::Fail => ConditionsResult::Error(aggregate(&errors)),
        FailurePolicy::Ignore => ConditionsResult::NotMatched { condition: None },
        // matcher.go handles Fail and Ignore only and otherwise falls through to a match.
        FailurePolicy::Other(_) => ConditionsResult::Matches,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiled::ValidatingPolicy;
    use serde_json::json;

    fn policy(failure: &str, conditions: &[&str]) -> ValidatingPolicy {
        let mcs: Vec<Value> = conditions
            .iter()
            .enumerate()
            .map(|(i, e)| json!({"name": format!("c{i}"), "expression": e}))
            .collect();
        ValidatingPolicy::from_object(&json!({"metadata": {"name": "p"},
            "spec": {"failurePolicy": failure, "matchConditions": mcs}}))
    }

    fn run(failure: &str, conditions: &[&str]) -> ConditionsResult {
        let activation = Activation::new().with("object", json!({"a": 1}));
        evaluate(&policy(failure, conditions).core, &activation)
    }

    #[test]
    fn first_false_wins_over_errors() {
        assert_eq!(
            run("Fail", &["object.nope == 1", "false"]),
            ConditionsResult::NotMatched {
                condition: Some("c1".into())
            }
        );
        assert_eq!(
            run("Fail", &["true", "object.a == 1"]),
            ConditionsResult::Matches
        );
    }

    #[test]
    fn errors_follow_failure_policy() {
        assert_eq!(
            run("Fail", &["object.nope == 1", "true"]),
            ConditionsResult::Error(
                "expression 'object.nope == 1' resulted in error: no such key: nope".into()
            )
        );
        assert_eq!(
            run("Fail", &["object.x == 1", "object.y == 1"]),
            ConditionsResult::Error("[expression 'object.x == 1' resulted in error: no such key: x, expression 'object.y == 1' resulted in error: no such key: y]".into())
        );
        assert_eq!(
            run("Ignore", &["object.nope == 1"]),
            ConditionsResult::NotMatched { condition: None }
        );
    }
}
