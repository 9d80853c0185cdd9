//! A MutatingAdmissionPolicy (`admissionregistration.k8s.io` v1, v1beta1, v1alpha1; the
//! three have the same spec) decoded and compiled for evaluation (reference §1, §5, §9):
//! the shared [`PolicyCore`] compiled with the MAP types, `reinvocationPolicy` (default
//! `Never`) and the `mutations` in order.
//!
//! Each mutation's expression is compiled in the policy's scope (`object`, `oldObject`,
//! `request`, `namespaceObject`, `authorizer`, `params` with a `paramKind`, all
//! `variables`, the `Object`/`JSONPatch` types) and its output type checked as the server
//! checks it at creation (`must evaluate to Object but got string`); as for
//! ValidatingAdmissionPolicy, a policy that fails either is not refused here: the error is
//! kept in [`Expr::program`] and becomes the mutation's runtime error
//! (`compilation error: …`).

use crate::compiled::{Expr, Policy, PolicyCore};
use kadmit_schema::cel::expression::{compile, ResultType};
use serde_json::Value;

/// `spec.reinvocationPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReinvocationPolicy {
    /// The default: the policy runs once per request.
    #[default]
    Never,
    /// The policy runs again in the reinvocation round when the object changed since it
    /// last ran (§9.4).
    IfNeeded,
}

/// `mutations[i].patchType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    /// `applyConfiguration.expression` returns an `Object{…}` merged into the object.
    ApplyConfiguration,
    /// `jsonPatch.expression` returns a `list(JSONPatch)` applied to the object.
    JsonPatch,
}

impl PatchType {
    /// The type the expression must return.
    pub fn output(self) -> ResultType {
        match self {
            PatchType::ApplyConfiguration => ResultType::Object,
            PatchType::JsonPatch => ResultType::JsonPatchList,
        }
    }
}

/// One `spec.mutations` entry.
#[derive(Debug)]
pub struct Mutation {
    pub patch_type: PatchType,
    pub expression: Expr,
}

/// A MutatingAdmissionPolicy compiled for evaluation.
#[derive(Debug)]
pub struct MutatingPolicy {
    pub core: PolicyCore,
    pub reinvocation_policy: ReinvocationPolicy,
    pub mutations: Vec<Mutation>,
}

impl MutatingPolicy {
    pub fn from_object(object: &Value) -> MutatingPolicy {
        let core = PolicyCore::from_mutating_object(object);
        let spec = &object["spec"];
        let reinvocation_policy = match spec.get("reinvocationPolicy").and_then(Value::as_str) {
            Some("IfNeeded") => ReinvocationPolicy::IfNeeded,
            _ => ReinvocationPolicy::Never,
        };
        let mutations = spec
            .get("mutations")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(|m| {
                // `patchType` names the member; without it (refused by the server), the
                // member present decides.
                let patch_type = match m.get("patchType").and_then(Value::as_str) {
                    Some("JSONPatch") => PatchType::JsonPatch,
                    Some("ApplyConfiguration") => PatchType::ApplyConfiguration,
                    _ if m.get("jsonPatch").is_some_and(Value::is_object) => PatchType::JsonPatch,
                    _ => PatchType::ApplyConfiguration,
                };
                let member = match patch_type {
                    PatchType::ApplyConfiguration => "applyConfiguration",
                    PatchType::JsonPatch => "jsonPatch",
                };
                let source = m[member]["expression"].as_str().unwrap_or("");
                Mutation {
                    patch_type,
                    expression: compile_mutation(source, patch_type, &core),
                }
            })
            .collect();
        MutatingPolicy {
            core,
            reinvocation_policy,
            mutations,
        }
    }
}

/// Compiles a mutation's expression and checks its output type.
fn compile_mutation(source: &str, patch_type: PatchType, core: &PolicyCore) -> Expr {
    let program = compile(source, &core.scope)
        .map_err(|e| e.detail)
        .and_then(|p| p.check_output(&[patch_type.output()]).map(|()| p));
    Expr {
        source: source.to_owned(),
        program,
    }
}

impl Policy for MutatingPolicy {
    fn core(&self) -> &PolicyCore {
        &self.core
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decodes_defaults_and_checks_output_types() {
        let p = MutatingPolicy::from_object(&json!({
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": "p"},
            "spec": {
                "variables": [{"name": "o", "expression": "Object{}"}],
                "mutations": [
                    {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "variables.o"}},
                    {"patchType": "JSONPatch", "jsonPatch": {"expression": "[JSONPatch{op: 'add', path: '/a', value: 1}]"}},
                    {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "'teapot'"}},
                    {"patchType": "JSONPatch", "jsonPatch": {"expression": "params"}},
                ],
            }
        }));
        assert_eq!(p.reinvocation_policy, ReinvocationPolicy::Never);
        assert!(
            p.core.variable_errors.is_empty(),
            "{:?}",
            p.core.variable_errors
        );
        let kinds: Vec<PatchType> = p.mutations.iter().map(|m| m.patch_type).collect();
        assert_eq!(
            kinds,
            [
                PatchType::ApplyConfiguration,
                PatchType::JsonPatch,
                PatchType::ApplyConfiguration,
                PatchType::JsonPatch
            ]
        );
        assert!(p.mutations[0].expression.program.is_ok());
        assert!(p.mutations[1].expression.program.is_ok());
        assert_eq!(
            p.mutations[2].expression.program.as_ref().unwrap_err(),
            "must evaluate to Object but got string"
        );
        assert!(p.mutations[3]
            .expression
            .program
            .as_ref()
            .unwrap_err()
            .contains("undeclared reference to 'params'"));
        let if_needed = MutatingPolicy::from_object(&json!({"metadata": {"name": "q"},
            "spec": {"reinvocationPolicy": "IfNeeded"}}));
        assert_eq!(if_needed.reinvocation_policy, ReinvocationPolicy::IfNeeded);
    }
}
