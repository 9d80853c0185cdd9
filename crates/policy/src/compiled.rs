//! Policy and binding objects decoded once for evaluation (reference §1, §5): the API
//! defaults applied (`failurePolicy: Fail`; `matchConstraints` keeps its raw JSON, the
//! matcher defaults `matchPolicy: Equivalent` and `{}` selectors itself) and every
//! expression compiled in the scope the server compiles it in:
//!
//! | expression | declared |
//! | --- | --- |
//! | `matchConditions` | `object`, `oldObject`, `request`, `namespaceObject`, `authorizer`; `params` with a `paramKind`; no `variables` |
//! | `variables[i]` | as above, plus `variables` 0..i |
//! | validations, `auditAnnotations` | as above, plus all `variables` |
//! | `messageExpression` | as validations, without `authorizer` |
//!
//! A compile error does not refuse the policy here (the server refused it at creation, see
//! `validation`): it is kept and becomes the runtime error `compilation error: <detail>`
//! of the expression, as the server's filter reports it. A variable that does not compile
//! is left out of the invocation's variables; an expression using it fails with the
//! variable's compilation error.
//!
//! [`PolicyCore`] holds what ValidatingAdmissionPolicy and MutatingAdmissionPolicy share;
//! [`ValidatingPolicy`] adds validations and audit annotations. [`Binding`] decodes both
//! binding kinds (`validationActions` is empty for a MAP binding).

use crate::matching::{Equivalents, MatchResources, Matched, Request};
use kadmit_schema::cel::expression::{
    compile, CompiledExpression, Declarations, EvalError, Invocation, ResultType, VariablesDecl,
};
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};

/// `spec.failurePolicy` (default `Fail`). Any other value is kept: the dispatcher answers
/// `unrecognized failure policy: '<v>'`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailurePolicy {
    Fail,
    Ignore,
    Other(String),
}

impl FailurePolicy {
    fn from_spec(spec: &Value) -> FailurePolicy {
        match spec.get("failurePolicy").and_then(Value::as_str) {
            None | Some("Fail") => FailurePolicy::Fail,
            Some("Ignore") => FailurePolicy::Ignore,
            Some(other) => FailurePolicy::Other(other.to_owned()),
        }
    }

    /// `policyDecisionActionForError`: only `Ignore` lets an error pass.
    pub fn ignores_errors(&self) -> bool {
        *self == FailurePolicy::Ignore
    }
}

/// `spec.paramKind`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamKind {
    pub api_version: String,
    pub kind: String,
}

impl ParamKind {
    /// `schema.GroupVersionKind.String()`: `group/version, Kind=kind` (`/v1, Kind=ConfigMap`
    /// for the core group).
    pub fn gvk_string(&self) -> String {
        let (group, version) = self
            .api_version
            .rsplit_once('/')
            .unwrap_or(("", &self.api_version));
        format!("{group}/{version}, Kind={}", self.kind)
    }
}

/// One expression as written, with its compilation.
#[derive(Debug)]
pub struct Expr {
    /// The field's text, untrimmed (as the server's errors quote it).
    pub source: String,
    /// The program, or the compile error's text (`compilation failed: ERROR: …`).
    pub program: Result<CompiledExpression, String>,
}

impl Expr {
    pub fn compile(source: &str, declarations: &Declarations) -> Expr {
        Expr {
            source: source.to_owned(),
            program: compile(source, declarations).map_err(|e| e.detail),
        }
    }

    /// Evaluates in `invocation` (its variables, its budget): the value, or the error text
    /// the server's filter gives the expression (`compilation error: …`,
    /// `expression '<source>' resulted in error: …`), or [`RunError::OutOfBudget`] when the
    /// invocation's budget is spent (the filter then stops as a whole).
    pub fn run(&self, invocation: &mut Invocation, core: &PolicyCore) -> Result<Value, RunError> {
        let program = self
            .program
            .as_ref()
            .map_err(|e| RunError::Failed(format!("compilation error: {e}")))?;
        match invocation.evaluate(program) {
            Ok(v) => Ok(v),
            Err(EvalError::BudgetExhausted) => Err(RunError::OutOfBudget),
            Err(e) => {
                let text = e.to_string();
                let detail = match core.variable_compile_error(&text) {
                    Some(compile) => format!("compilation error: {compile}"),
                    None => text,
                };
                Err(RunError::Failed(format!(
                    "expression '{}' resulted in error: {detail}",
                    self.source
                )))
            }
        }
    }

    /// The output type, `Dyn` when unknown or not compiled.
    pub fn output_type(&self) -> ResultType {
        self.program
            .as_ref()
            .map_or(ResultType::Dyn, CompiledExpression::output_type)
    }
}

/// Why an expression gave no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// The expression's error, as the server words it.
    Failed(String),
    /// The invocation's budget is spent: `validation failed due to running out of cost
    /// budget, no further validation rules will be run`.
    OutOfBudget,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Failed(s) => f.write_str(s),
            RunError::OutOfBudget => f.write_str(OUT_OF_BUDGET),
        }
    }
}

/// The server's text when an invocation's budget is spent.
pub const OUT_OF_BUDGET: &str =
    "validation failed due to running out of cost budget, no further validation rules will be run";

/// A `matchConditions` entry.
#[derive(Debug)]
pub struct MatchCondition {
    pub name: String,
    pub expression: Expr,
}

/// What VAP and MAP share.
#[derive(Debug)]
pub struct PolicyCore {
    pub name: String,
    /// `spec.matchConstraints` as written (`null` when absent; it then matches nothing).
    pub match_constraints: Value,
    /// `match_constraints` decoded with the API defaults.
    pub matcher: Matcher,
    pub param_kind: Option<ParamKind>,
    pub failure_policy: FailurePolicy,
    pub match_conditions: Vec<MatchCondition>,
    /// The variables that compiled, in order (what [`Invocation`] evaluates lazily).
    ///
    /// [`Invocation`]: kadmit_schema::cel::expression::Invocation
    pub variables: Vec<(String, CompiledExpression)>,
    /// Variables that did not compile: name and compile error.
    pub variable_errors: Vec<(String, String)>,
    /// The scope of the expressions after the variables (validations, mutations, audit
    /// annotations): `authorizer` declared.
    pub scope: Declarations,
    /// The scope of `messageExpression`s: no `authorizer`.
    pub message_scope: Declarations,
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn list_at<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

impl PolicyCore {
    /// Decodes the shared part of a ValidatingAdmissionPolicy object.
    pub fn from_object(object: &Value) -> PolicyCore {
        PolicyCore::decode(object, false)
    }

    /// Decodes the shared part of a MutatingAdmissionPolicy object: as
    /// [`PolicyCore::from_object`], every expression compiled with the MAP types
    /// (`Object`, `JSONPatch`: AP `mutating/compilation.go` declares them for the whole
    /// policy).
    pub fn from_mutating_object(object: &Value) -> PolicyCore {
        PolicyCore::decode(object, true)
    }

    fn decode(object: &Value, mutation: bool) -> PolicyCore {
        let env = |params: bool, authorizer: bool| {
            let d = Declarations::admission(params, authorizer);
            if mutation {
                d.with_mutation_types()
            } else {
                d
            }
        };
        let name = str_at(&object["metadata"], "name").to_owned();
        let spec = &object["spec"];
        let param_kind = spec
            .get("paramKind")
            .filter(|p| p.is_object())
            .map(|p| ParamKind {
                api_version: str_at(p, "apiVersion").to_owned(),
                kind: str_at(p, "kind").to_owned(),
            });
        let params = param_kind.is_some();
        let match_conditions = list_at(spec, "matchConditions")
            .iter()
            .map(|mc| MatchCondition {
                name: str_at(mc, "name").to_owned(),
                expression: Expr::compile(str_at(mc, "expression"), &env(params, true)),
            })
            .collect();
        let mut declared: Vec<(String, ResultType)> = Vec::new();
        let mut variables = Vec::new();
        let mut variable_errors = Vec::new();
        for v in list_at(spec, "variables") {
            let name = str_at(v, "name").to_owned();
            let earlier = env(params, true).with_variables(VariablesDecl::Fields(declared.clone()));
            match compile(str_at(v, "expression"), &earlier) {
                Ok(program) => {
                    declared.push((name.clone(), program.output_type()));
                    variables.push((name, program));
                }
                Err(e) => {
                    declared.push((name.clone(), ResultType::Dyn));
                    variable_errors.push((name, e.detail));
                }
            }
        }
        let scope = env(params, true).with_variables(VariablesDecl::Fields(declared.clone()));
        let message_scope = env(params, false).with_variables(VariablesDecl::Fields(declared));
        let match_constraints = spec.get("matchConstraints").cloned().unwrap_or(Value::Null);
        PolicyCore {
            name,
            matcher: Matcher::new(&match_constraints),
            match_constraints,
            param_kind,
            failure_policy: FailurePolicy::from_spec(spec),
            match_conditions,
            variables,
            variable_errors,
            scope,
            message_scope,
        }
    }

    /// The compile error of a variable `expression` uses, when one does (checked after an
    /// evaluation failed with `no such key: <variable>`).
    pub fn variable_compile_error(&self, message: &str) -> Option<&str> {
        self.variable_errors
            .iter()
            .find(|(name, _)| message == format!("no such key: {name}"))
            .map(|(_, e)| e.as_str())
    }
}

/// A policy kind the dispatch loop can iterate (VAP and MAP).
pub trait Policy {
    fn core(&self) -> &PolicyCore;
}

/// A `spec.validations` entry.
#[derive(Debug)]
pub struct Validation {
    pub expression: Expr,
    /// `message`, when set.
    pub message: Option<String>,
    pub message_expression: Option<Expr>,
    /// `reason`, when set (the decision then defaults to `Invalid`).
    pub reason: Option<String>,
}

/// A `spec.auditAnnotations` entry.
#[derive(Debug)]
pub struct AuditAnnotation {
    pub key: String,
    pub value_expression: Expr,
}

/// A ValidatingAdmissionPolicy compiled for evaluation.
#[derive(Debug)]
pub struct ValidatingPolicy {
    pub core: PolicyCore,
    pub validations: Vec<Validation>,
    pub audit_annotations: Vec<AuditAnnotation>,
}

impl ValidatingPolicy {
    pub fn from_object(object: &Value) -> ValidatingPolicy {
        let core = PolicyCore::from_object(object);
        let spec = &object["spec"];
        let validations = list_at(spec, "validations")
            .iter()
            .map(|v| Validation {
                expression: Expr::compile(str_at(v, "expression"), &core.scope),
                message: v.get("message").and_then(Value::as_str).map(str::to_owned),
                message_expression: v
                    .get("messageExpression")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(|s| Expr::compile(s, &core.message_scope)),
                reason: v.get("reason").and_then(Value::as_str).map(str::to_owned),
            })
            .collect();
        let audit_annotations = list_at(spec, "auditAnnotations")
            .iter()
            .map(|a| AuditAnnotation {
                key: str_at(a, "key").to_owned(),
                value_expression: Expr::compile(str_at(a, "valueExpression"), &core.scope),
            })
            .collect();
        ValidatingPolicy {
            core,
            validations,
            audit_annotations,
        }
    }
}

impl Policy for ValidatingPolicy {
    fn core(&self) -> &PolicyCore {
        &self.core
    }
}

/// `spec.paramRef` of a binding.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParamRef {
    /// `""` when absent.
    pub name: String,
    /// `""` when absent.
    pub namespace: String,
    /// The label selector as written (`{}` selects every object).
    pub selector: Option<Value>,
    /// `parameterNotFoundAction`: `Deny` when absent (`SetDefaults_ParamRef`).
    pub parameter_not_found_action: String,
}

/// A `MatchResources` object decoded once, when its policy or binding is compiled
/// ([`MatchResources::from_value`]): the matcher, or the error every match reports.
#[derive(Debug, Clone)]
pub struct Matcher(Result<MatchResources, String>);

impl Matcher {
    pub fn new(value: &Value) -> Matcher {
        Matcher(MatchResources::from_value(value))
    }

    /// `Matcher.Matches` ([`crate::matching::match_resources`]).
    pub fn matches(
        &self,
        request: &Request,
        equivalents: &dyn Equivalents,
    ) -> Result<Option<Matched>, String> {
        match &self.0 {
            Ok(resources) => resources.matches(request, equivalents),
            Err(e) => Err(e.clone()),
        }
    }
}

/// Two matchers decoded from equal objects are equal: a [`Binding`] compares by what it
/// was decoded from.
impl PartialEq for Matcher {
    fn eq(&self, _: &Matcher) -> bool {
        true
    }
}

/// A ValidatingAdmissionPolicyBinding or MutatingAdmissionPolicyBinding.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub name: String,
    pub policy_name: String,
    pub param_ref: Option<ParamRef>,
    /// `spec.matchResources` as written, when set.
    pub match_resources: Option<Value>,
    /// `match_resources` decoded with the API defaults.
    pub matcher: Option<Matcher>,
    /// `Deny`, `Warn`, `Audit` in the binding's order (empty for a MAP binding).
    pub validation_actions: Vec<String>,
    /// Whether the binding applied to an object of the run (its policy's and its own
    /// match held), for the report of rules that matched no object.
    pub applied: Applied,
}

/// A flag the run's threads raise when a binding applies to an object. A copy starts with
/// the value of the original; two flags compare equal, as a [`Binding`] compares by what
/// it was decoded from.
#[derive(Debug, Default)]
pub struct Applied(AtomicBool);

impl Applied {
    pub fn raise(&self) {
        // Read first: once raised, the threads only read the line it is on.
        if !self.get() {
            self.0.store(true, Ordering::Relaxed);
        }
    }

    pub fn get(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

impl Clone for Applied {
    fn clone(&self) -> Applied {
        Applied(AtomicBool::new(self.get()))
    }
}

impl PartialEq for Applied {
    fn eq(&self, _: &Applied) -> bool {
        true
    }
}

impl Binding {
    pub fn from_object(object: &Value) -> Binding {
        let spec = &object["spec"];
        let param_ref = spec
            .get("paramRef")
            .filter(|p| p.is_object())
            .map(|p| ParamRef {
                name: str_at(p, "name").to_owned(),
                namespace: str_at(p, "namespace").to_owned(),
                selector: p.get("selector").filter(|s| !s.is_null()).cloned(),
                parameter_not_found_action: p
                    .get("parameterNotFoundAction")
                    .and_then(Value::as_str)
                    .unwrap_or("Deny")
                    .to_owned(),
            });
        let match_resources = spec.get("matchResources").filter(|m| !m.is_null()).cloned();
        Binding {
            name: str_at(&object["metadata"], "name").to_owned(),
            policy_name: str_at(spec, "policyName").to_owned(),
            param_ref,
            matcher: match_resources.as_ref().map(Matcher::new),
            match_resources,
            validation_actions: list_at(spec, "validationActions")
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            applied: Applied::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_and_scopes() {
        let p = ValidatingPolicy::from_object(&json!({
            "metadata": {"name": "p"},
            "spec": {
                "matchConditions": [{"name": "a", "expression": "variables.x == 1"}],
                "variables": [{"name": "x", "expression": "1"}, {"name": "y", "expression": "params"}],
                "validations": [{"expression": "variables.x == 1", "messageExpression": "string(authorizer)"}],
            }
        }));
        assert_eq!(p.core.failure_policy, FailurePolicy::Fail);
        let mc = p.core.match_conditions[0].expression.program.as_ref();
        assert!(mc
            .unwrap_err()
            .contains("undeclared reference to 'variables'"));
        assert_eq!(p.core.variables.len(), 1);
        assert!(p.core.variable_errors[0]
            .1
            .contains("undeclared reference to 'params'"));
        assert!(p.validations[0].expression.program.is_ok());
        let m = p.validations[0].message_expression.as_ref().unwrap();
        assert!(m
            .program
            .as_ref()
            .unwrap_err()
            .contains("undeclared reference to 'authorizer'"));
    }

    #[test]
    fn binding_param_ref_defaults_to_deny() {
        let b = Binding::from_object(&json!({
            "metadata": {"name": "b"},
            "spec": {"policyName": "p", "paramRef": {"name": "x"}, "validationActions": ["Warn", "Audit"]}
        }));
        assert_eq!(b.param_ref.unwrap().parameter_not_found_action, "Deny");
        assert_eq!(b.validation_actions, ["Warn", "Audit"]);
        let k = ParamKind {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
        };
        assert_eq!(k.gvk_string(), "/v1, Kind=ConfigMap");
    }
}
