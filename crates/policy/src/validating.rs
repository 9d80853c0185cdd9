//! ValidatingAdmissionPolicy evaluation (AP `policy/validating/{validator,dispatcher}.go`,
//! reference §6, §7, §11): for a request, every matching (policy, binding, param)
//! invocation is evaluated and its decisions turned into denials, warnings and audit
//! annotations.
//!
//! Per invocation ([`evaluate_invocation`]): matchConditions (own budget, §3); then the
//! validations sharing one budget with the variables they use ([`VALIDATION_BUDGET`]);
//! then the messageExpressions with what is left; then the auditAnnotations with a fresh
//! budget. Errors follow the policy's `failurePolicy` (`Ignore` admits).
//!
//! Dispatch ([`validate`]): configuration errors (`failed to configure policy|binding: …`)
//! and audit-annotation errors under `Fail` deny directly; every other denied decision goes
//! through the binding's `validationActions` (`Deny` → a [`Denial`], `Warn` → a warning,
//! `Audit` → the `validation_failure` audit annotation). The server reports only the first
//! denial; [`ValidatingOutcome::denials`] keeps all of them in order, so the first one is
//! the server's.
//!
//! Offline differences: the object is not converted to the version a `matchPolicy:
//! Equivalent` rule matched (`request.kind`/`resource` do show the matched ones);
//! `authorizer` is null (see `request`); when several `Audit` failures occur, the
//! `validation_failure` annotation keeps the first, as the server's `AddAnnotation`
//! refuses to overwrite a key with another value.

use crate::compiled::{Binding, FailurePolicy, RunError, ValidatingPolicy, OUT_OF_BUDGET};
use crate::conditions::{self, ConditionsResult};
use crate::dispatch::{plan, Step};
use crate::matching::{Equivalents, Matched};
use crate::params::ParamSource;
use crate::request::{AdmissionRequest, RequestValues};
use kadmit_schema::cel::expression::Invocation;
use kadmit_schema::cel::PER_CALL_LIMIT;
/// `RuntimeCELCostBudget`: validations, messageExpressions and variables of one invocation.
pub use kadmit_schema::cel::VALIDATION_BUDGET;
use serde_json::Value;

/// The audit annotation of `Audit` validation actions.
pub const VALIDATION_FAILURE_KEY: &str = "validation.policy.admission.k8s.io/validation_failure";
/// `MaxEvaluatedMessageExpressionSizeBytes`.
const MAX_MESSAGE_BYTES: usize = 5 * 1024;
/// `maxAuditAnnotationValueLength`.
const MAX_AUDIT_VALUE_BYTES: usize = 10 * 1024;

/// One denial of the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    pub policy: String,
    /// `None` for a policy-level configuration error.
    pub binding: Option<String>,
    /// The whole server message: `ValidatingAdmissionPolicy 'p' with binding 'b' denied
    /// request: …` (the client sees it after `<resource> "<name>" is forbidden: `).
    pub message: String,
    /// The decision's own message (after `denied request: `).
    pub detail: String,
    /// `Invalid` unless the validation set another reason.
    pub reason: String,
    /// The HTTP code of `reason` (`reasonToCode`).
    pub code: u16,
}

/// What the VAPs decided about a request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValidatingOutcome {
    /// Every denial, in dispatch order (the server reports the first only).
    pub denials: Vec<Denial>,
    /// HTTP 299 warning texts (`Validation failed for ValidatingAdmissionPolicy …`).
    pub warnings: Vec<String>,
    /// Audit annotations, key and value, in the order they were added.
    pub audit_annotations: Vec<(String, String)>,
}

impl ValidatingOutcome {
    pub fn allowed(&self) -> bool {
        self.denials.is_empty()
    }
}

/// `reasonToCode`.
pub fn reason_to_code(reason: &str) -> u16 {
    match reason {
        "Forbidden" => 403,
        "Unauthorized" => 401,
        "RequestEntityTooLarge" => 413,
        _ => 422,
    }
}

/// A decision of one validation (or the single decision of an invocation that failed as a
/// whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// `ActionDeny` (a failed validation, or an error under `Fail`).
    pub deny: bool,
    pub message: String,
    /// The validation's reason for a failed validation; `None` for errors (`Invalid`).
    pub reason: Option<String>,
}

/// An audit annotation's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditResult {
    Publish {
        key: String,
        value: String,
    },
    Exclude,
    /// Under `failurePolicy: Fail`; denies directly.
    Error(String),
}

/// `ValidateResult`: one decision per validation (index = `expressionIndex`) unless the
/// invocation failed as a whole, and the audit annotations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValidateResult {
    pub decisions: Vec<Decision>,
    pub audit_annotations: Vec<AuditResult>,
}

fn error_decision(failure: &FailurePolicy, message: String) -> Decision {
    Decision {
        deny: !failure.ignores_errors(),
        message,
        reason: None,
    }
}

fn single(failure: &FailurePolicy, message: String) -> ValidateResult {
    ValidateResult {
        decisions: vec![error_decision(failure, message)],
        audit_annotations: Vec::new(),
    }
}

/// cel-go's name of a result's type.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null_type",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int",
        Value::Number(n) if n.is_u64() => "uint",
        Value::Number(_) => "double",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "map",
    }
}

/// The message of a messageExpression result, when usable: a string that, trimmed, is
/// non-empty, at most 5 KiB and on one line.
fn usable_message(result: Option<&Result<Value, RunError>>) -> Option<String> {
    let Some(Ok(Value::String(s))) = result else {
        return None;
    };
    let s = s.trim();
    (!s.is_empty() && s.len() <= MAX_MESSAGE_BYTES && !s.contains('\n')).then(|| s.to_owned())
}

/// `validator.Validate` for one invocation.
pub fn evaluate_invocation(
    policy: &ValidatingPolicy,
    request: &AdmissionRequest,
    matched: &Matched,
    params: Option<&Value>,
) -> ValidateResult {
    evaluate_in(policy, &RequestValues::new(request), matched, params)
}

/// [`evaluate_invocation`] with the request's shared values.
fn evaluate_in(
    policy: &ValidatingPolicy,
    values: &RequestValues,
    matched: &Matched,
    params: Option<&Value>,
) -> ValidateResult {
    let core = &policy.core;
    let failure = &core.failure_policy;
    if !core.match_conditions.is_empty() {
        let conditions_activation = values.activation(matched, params, false);
        match conditions::evaluate(core, &conditions_activation) {
            ConditionsResult::Matches => {}
            ConditionsResult::NotMatched { .. } => return ValidateResult::default(),
            ConditionsResult::Error(e) => return single(failure, e),
        }
    }
    let activation = values.activation(matched, params, true);

    // Validations, one budget with the variables.
    let mut invocation = Invocation::new(&activation, &core.variables, VALIDATION_BUDGET);
    let mut results = Vec::with_capacity(policy.validations.len());
    for v in &policy.validations {
        match v.expression.run(&mut invocation, core) {
            Err(RunError::OutOfBudget) => return single(failure, OUT_OF_BUDGET.to_owned()),
            r => results.push(r),
        }
    }
    // messageExpressions with the remaining budget (a fresh variable cache, as the
    // server's second filter run).
    let remaining = invocation.remaining_budget();
    let mut messages = Invocation::new(&activation, &core.variables, remaining);
    let mut message_results: Vec<Option<Result<Value, RunError>>> = Vec::new();
    let mut message_failure = None;
    let skip_messages = messages_cannot_matter(policy, &results, remaining);
    for v in policy.validations.iter().filter(|_| !skip_messages) {
        let Some(expression) = &v.message_expression else {
            message_results.push(None);
            continue;
        };
        match expression.run(&mut messages, core) {
            Err(RunError::OutOfBudget) => {
                message_failure = Some(format!("failed messageExpression: {OUT_OF_BUDGET}"));
                break;
            }
            r => message_results.push(Some(r)),
        }
    }
    let mut decisions = Vec::with_capacity(results.len());
    for (i, (v, result)) in policy.validations.iter().zip(results).enumerate() {
        let decision = if let Some(e) = &message_failure {
            error_decision(failure, e.clone())
        } else {
            match result {
                Err(e) => error_decision(failure, e.to_string()),
                Ok(Value::Bool(true)) => Decision {
                    deny: false,
                    message: String::new(),
                    reason: None,
                },
                Ok(_) => {
                    let message = usable_message(message_results.get(i).and_then(Option::as_ref))
                        .unwrap_or_else(|| match &v.message {
                            Some(m) if !m.is_empty() => m.trim().to_owned(),
                            _ => format!("failed expression: {}", v.expression.source.trim()),
                        });
                    Decision {
                        deny: true,
                        message,
                        reason: Some(v.reason.clone().unwrap_or_else(|| "Invalid".into())),
                    }
                }
            }
        };
        decisions.push(decision);
    }

    // Audit annotations, own budget.
    let mut audit = Invocation::new(&activation, &core.variables, VALIDATION_BUDGET);
    let mut audit_annotations = Vec::with_capacity(policy.audit_annotations.len());
    for a in &policy.audit_annotations {
        let error = |message: String| {
            if failure.ignores_errors() {
                AuditResult::Exclude
            } else {
                AuditResult::Error(message)
            }
        };
        let result = match a.value_expression.run(&mut audit, core) {
            Err(RunError::OutOfBudget) => return single(failure, OUT_OF_BUDGET.to_owned()),
            Err(RunError::Failed(e)) => error(e),
            Ok(Value::Null) => AuditResult::Exclude,
            Ok(Value::String(s)) if s.trim().is_empty() => AuditResult::Exclude,
            Ok(Value::String(s)) => AuditResult::Publish {
                key: a.key.clone(),
                value: s.trim().to_owned(),
            },
            Ok(other) => AuditResult::Error(format!(
                "valueExpression '{}' resulted in unsupported return type: {}. Return type must be either string or null.",
                a.value_expression.source,
                type_name(&other)
            )),
        };
        audit_annotations.push(result);
    }
    ValidateResult {
        decisions,
        audit_annotations,
    }
}

/// Whether the messageExpressions can be left unevaluated without changing the outcome.
/// The server evaluates them all, but a message is read only for a validation that did
/// not pass, and otherwise they matter only by running the shared budget out, which turns
/// every decision into an error. Each evaluation (a message, or a variable it reads,
/// evaluated once in the messages' own cache) spends at most [`PER_CALL_LIMIT`]: it stops
/// with the per-call error there. So when every validation passed and what is left
/// covers every message and variable at that limit, no evaluation can meet a budget
/// smaller than the per-call limit, and the budget cannot run out.
fn messages_cannot_matter(
    policy: &ValidatingPolicy,
    results: &[Result<Value, RunError>],
    remaining: u64,
) -> bool {
    let all_passed = results.iter().all(|r| matches!(r, Ok(Value::Bool(true))));
    let evaluations = policy
        .validations
        .iter()
        .filter(|v| v.message_expression.is_some())
        .count()
        + policy.core.variables.len();
    all_passed && remaining >= (evaluations as u64).saturating_mul(PER_CALL_LIMIT)
}

/// Go's `encoding/json` string: HTML-safe escapes of `<`, `>`, `&`, U+2028, U+2029.
fn go_json_string(s: &str) -> String {
    let text = Value::from(s).to_string();
    text.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// The value of [`VALIDATION_FAILURE_KEY`] for one failure (a JSON list of one entry, keys
/// in Go struct order).
fn validation_failure_value(binding: &Binding, index: usize, message: &str) -> String {
    let actions: Vec<String> = binding
        .validation_actions
        .iter()
        .map(|a| go_json_string(a))
        .collect();
    format!(
        "[{{\"message\":{},\"policy\":{},\"binding\":{},\"expressionIndex\":{index},\"validationActions\":[{}]}}]",
        go_json_string(message),
        go_json_string(&binding.policy_name),
        go_json_string(&binding.name),
        actions.join(",")
    )
}

/// Cuts `s` to at most `max` bytes on a character boundary (upstream cuts bytes).
fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

struct Collector<'a> {
    outcome: &'a mut ValidatingOutcome,
}

impl Collector<'_> {
    fn deny(
        &mut self,
        policy: &str,
        binding: Option<&str>,
        detail: String,
        reason: Option<String>,
    ) {
        let message = match binding {
            Some(b) => {
                format!("ValidatingAdmissionPolicy '{policy}' with binding '{b}' denied request: {detail}")
            }
            None => format!("ValidatingAdmissionPolicy '{policy}' denied request: {detail}"),
        };
        let reason = reason
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| "Invalid".into());
        self.outcome.denials.push(Denial {
            policy: policy.to_owned(),
            binding: binding.map(str::to_owned),
            message,
            detail,
            code: reason_to_code(&reason),
            reason,
        });
    }

    /// `attributes.AddAnnotation`: an existing key keeps its value (the server refuses the
    /// overwrite).
    fn annotate(&mut self, key: String, value: String) {
        if !self
            .outcome
            .audit_annotations
            .iter()
            .any(|(k, _)| *k == key)
        {
            self.outcome.audit_annotations.push((key, value));
        }
    }
}

/// Evaluates every ValidatingAdmissionPolicy in `policies` bound by `bindings` against
/// `request`.
pub fn validate(
    policies: &[ValidatingPolicy],
    bindings: &[Binding],
    request: &AdmissionRequest,
    equivalents: &dyn Equivalents,
    params: &dyn ParamSource,
) -> ValidatingOutcome {
    let mut outcome = ValidatingOutcome::default();
    let mut out = Collector {
        outcome: &mut outcome,
    };
    let steps = plan(policies, bindings, &request.attributes, equivalents, params);
    let values = RequestValues::new(request).with_param_source(params);
    // The audit annotations of the current policy: key and distinct values.
    let mut current: Option<&str> = None;
    let mut collected: Vec<(String, Vec<String>)> = Vec::new();
    let publish =
        |out: &mut Collector, policy: Option<&str>, collected: &mut Vec<(String, Vec<String>)>| {
            if let Some(policy) = policy {
                for (key, values) in collected.drain(..) {
                    out.annotate(format!("{policy}/{key}"), values.join(", "));
                }
            }
        };
    for step in &steps {
        let name = step.policy_name();
        if current != Some(name) {
            publish(&mut out, current, &mut collected);
            current = Some(name);
        }
        match step {
            Step::ConfigError {
                policy,
                binding,
                message,
            } => {
                let detail = match &policy.core.failure_policy {
                    FailurePolicy::Ignore => continue,
                    FailurePolicy::Fail => message.clone(),
                    FailurePolicy::Other(v) => format!("unrecognized failure policy: '{v}'"),
                };
                out.deny(name, binding.map(|b| b.name.as_str()), detail, None);
            }
            Step::Invoke {
                policy,
                binding,
                matched,
                params,
            } => {
                let results: Vec<ValidateResult> = params
                    .iter()
                    .map(|p| evaluate_in(policy, &values, matched, p.as_deref()))
                    .collect();
                for result in results {
                    for (i, d) in result.decisions.iter().enumerate().filter(|(_, d)| d.deny) {
                        for action in &binding.validation_actions {
                            match action.as_str() {
                                "Deny" => out.deny(
                                    name,
                                    Some(&binding.name),
                                    d.message.clone(),
                                    d.reason.clone(),
                                ),
                                "Audit" => out.annotate(
                                    VALIDATION_FAILURE_KEY.to_owned(),
                                    validation_failure_value(binding, i, &d.message),
                                ),
                                "Warn" => out.outcome.warnings.push(format!(
                                    "Validation failed for ValidatingAdmissionPolicy '{name}' with binding '{}': {}",
                                    binding.name, d.message
                                )),
                                _ => {}
                            }
                        }
                    }
                    for a in result.audit_annotations {
                        match a {
                            AuditResult::Publish { key, value } => {
                                let value = truncate(&value, MAX_AUDIT_VALUE_BYTES).to_owned();
                                match collected.iter_mut().find(|(k, _)| *k == key) {
                                    Some((_, values)) => {
                                        if !values.contains(&value) {
                                            values.push(value);
                                        }
                                    }
                                    None => collected.push((key, vec![value])),
                                }
                            }
                            AuditResult::Exclude => {}
                            AuditResult::Error(e) => out.deny(name, Some(&binding.name), e, None),
                        }
                    }
                }
            }
        }
    }
    publish(&mut out, current, &mut collected);
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::{Gvr, Request, Table};
    use crate::params::ParamScope;
    use kadmit_match::Gvk;
    use serde_json::json;

    struct Params(Vec<Value>);

    impl ParamSource for Params {
        fn scope(&self, _: &str, kind: &str) -> Option<ParamScope> {
            (kind == "ConfigMap").then_some(ParamScope::Namespaced)
        }
        fn objects(&self, _: &str, _: &str) -> Vec<&Value> {
            self.0.iter().collect()
        }
    }

    fn policy(name: &str, spec: Value) -> ValidatingPolicy {
        let mut spec = spec;
        spec["matchConstraints"] = json!({"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
            "operations": ["*"], "resources": ["configmaps"]}]});
        ValidatingPolicy::from_object(&json!({"metadata": {"name": name}, "spec": spec}))
    }

    fn binding(name: &str, policy: &str, actions: &[&str], param_ref: Value) -> Binding {
        Binding::from_object(&json!({"metadata": {"name": name}, "spec": {
            "policyName": policy, "validationActions": actions, "paramRef": param_ref}}))
    }

    fn run(
        policies: &[ValidatingPolicy],
        bindings: &[Binding],
        params: Vec<Value>,
    ) -> ValidatingOutcome {
        let object = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cm", "namespace": "ns"}, "data": {"a": "x"}});
        run_on(policies, bindings, params, &object)
    }

    fn run_on(
        policies: &[ValidatingPolicy],
        bindings: &[Binding],
        params: Vec<Value>,
        object: &Value,
    ) -> ValidatingOutcome {
        let request = AdmissionRequest {
            attributes: Request {
                operation: "CREATE",
                kind: Gvk {
                    group: String::new(),
                    version: "v1".into(),
                    kind: "ConfigMap".into(),
                },
                resource: Gvr::new("", "v1", "configmaps"),
                name: "cm",
                namespace: "ns",
                object: Some(object),
                ..Request::default()
            },
            ..AdmissionRequest::default()
        };
        validate(
            policies,
            bindings,
            &request,
            &Table::builtin(),
            &Params(params),
        )
    }

    #[test]
    fn message_fallbacks_reason_and_code() {
        let p = policy(
            "p",
            json!({"validations": [
                {"expression": "false", "messageExpression": "'  from ' + object.metadata.name + ' '"},
                {"expression": "false", "messageExpression": "'two\\nlines'", "message": " static ", "reason": "Forbidden"},
                {"expression": "false ", "messageExpression": "object.nope"},
                {"expression": "true"},
            ]}),
        );
        let out = run(&[p], &[binding("b", "p", &["Deny"], Value::Null)], vec![]);
        let details: Vec<&str> = out.denials.iter().map(|d| d.detail.as_str()).collect();
        assert_eq!(details, ["from cm", "static", "failed expression: false"]);
        assert_eq!(
            out.denials[0].message,
            "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: from cm"
        );
        assert_eq!(
            (out.denials[0].reason.as_str(), out.denials[0].code),
            ("Invalid", 422)
        );
        assert_eq!(
            (out.denials[1].reason.as_str(), out.denials[1].code),
            ("Forbidden", 403)
        );
    }

    #[test]
    fn messages_that_run_the_shared_budget_out_fail_every_validation() {
        // `startsWith` costs 0.1 per character of its argument: 900,000 units here.
        let object = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cm", "namespace": "ns"}, "data": {"s": "a".repeat(9_000_000)}});
        let check = json!({"expression": "object.data.s.startsWith(object.data.s)",
            "messageExpression": "'cheap'"});
        let costly_message = json!({"expression": "true",
            "messageExpression": "object.data.s.startsWith(object.data.s) ? 'm' : 'n'"});
        let bind = [binding("b", "p", &["Deny"], Value::Null)];

        // Eleven checks pass and leave about 100,000 units: the last message needs more.
        let mut validations = vec![check.clone(); 11];
        validations.push(costly_message.clone());
        let p = policy("p", json!({"validations": validations}));
        let out = run_on(&[p], &bind, vec![], &object);
        let failed = format!("failed messageExpression: {OUT_OF_BUDGET}");
        let details: Vec<&str> = out.denials.iter().map(|d| d.detail.as_str()).collect();
        assert_eq!(details, vec![failed.as_str(); 12]);

        // One check leaves 9.1 million: the same message fits, and nothing is denied.
        let p = policy("p", json!({"validations": [check, costly_message]}));
        assert!(run_on(&[p], &bind, vec![], &object).allowed());
    }

    #[test]
    fn runtime_errors_go_through_validation_actions() {
        let p = policy(
            "p",
            json!({"validations": [{"expression": "object.nope == 1"}]}),
        );
        let out = run(
            &[p],
            &[binding("b", "p", &["Warn", "Audit"], Value::Null)],
            vec![],
        );
        assert!(out.allowed());
        assert_eq!(
            out.warnings,
            ["Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': expression 'object.nope == 1' resulted in error: no such key: nope"]
        );
        assert_eq!(out.audit_annotations, [(VALIDATION_FAILURE_KEY.to_owned(),
            "[{\"message\":\"expression 'object.nope == 1' resulted in error: no such key: nope\",\"policy\":\"p\",\"binding\":\"b\",\"expressionIndex\":0,\"validationActions\":[\"Warn\",\"Audit\"]}]".to_owned())]);
        let ignore = policy(
            "p",
            json!({"failurePolicy": "Ignore", "validations": [{"expression": "object.nope == 1"}]}),
        );
        let out = run(
            &[ignore],
            &[binding("b", "p", &["Deny"], Value::Null)],
            vec![],
        );
        assert_eq!(out, ValidatingOutcome::default());
    }

    #[test]
    fn config_errors_deny_whatever_the_actions() {
        let p = policy(
            "p",
            json!({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
                "validations": [{"expression": "true"}]}),
        );
        let out = run(
            &[p],
            &[binding("b", "p", &["Warn"], json!({"name": "missing"}))],
            vec![],
        );
        assert_eq!(
            out.denials[0].message,
            "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"
        );
        assert!(out.warnings.is_empty());
        let allow = policy(
            "p",
            json!({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
                "validations": [{"expression": "false"}]}),
        );
        let b = binding(
            "b",
            "p",
            &["Deny"],
            json!({"name": "missing", "parameterNotFoundAction": "Allow"}),
        );
        assert!(run(&[allow], &[b], vec![]).allowed());
    }

    #[test]
    fn params_by_selector_and_audit_annotations_joined() {
        let p = policy(
            "p",
            json!({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
                "validations": [{"expression": "params.data.ok == 'yes'", "messageExpression": "'bad ' + params.metadata.name"}],
                "auditAnnotations": [{"key": "k", "valueExpression": "params.data.ok"},
                    {"key": "n", "valueExpression": "1"}]}),
        );
        let cm = |name: &str, ok: &str| json!({"metadata": {"name": name, "namespace": "ns"}, "data": {"ok": ok}});
        let params = vec![cm("c", "yes"), cm("a", "no"), cm("b", "yes")];
        let out = run(
            &[p],
            &[binding("b", "p", &["Deny"], json!({"selector": {}}))],
            params,
        );
        let details: Vec<&str> = out.denials.iter().map(|d| d.detail.as_str()).collect();
        assert_eq!(
            details,
            [
                "bad a",
                "valueExpression '1' resulted in unsupported return type: int. Return type must be either string or null.",
                "valueExpression '1' resulted in unsupported return type: int. Return type must be either string or null.",
                "valueExpression '1' resulted in unsupported return type: int. Return type must be either string or null.",
            ]
        );
        assert_eq!(
            out.audit_annotations,
            [("p/k".to_owned(), "no, yes".to_owned())]
        );
    }

    #[test]
    fn conditions_skip_and_compile_errors_decide_at_runtime() {
        let skipped = policy(
            "a",
            json!({"matchConditions": [{"name": "c", "expression": "object.data.a == 'y'"}],
                "validations": [{"expression": "false"}]}),
        );
        let broken = policy(
            "b",
            json!({"validations": [{"expression": "object.data.a =="}]}),
        );
        let unknown = policy(
            "c",
            json!({"failurePolicy": "Sometimes", "paramKind": {"apiVersion": "v1", "kind": "Nope"},
                "validations": [{"expression": "true"}]}),
        );
        let out = run(
            &[unknown, broken, skipped],
            &[
                binding("ba", "a", &["Deny"], Value::Null),
                binding("bb", "b", &["Deny"], Value::Null),
                binding("bc", "c", &["Deny"], json!({"name": "x"})),
            ],
            vec![],
        );
        let details: Vec<&str> = out.denials.iter().map(|d| d.detail.as_str()).collect();
        assert_eq!(details.len(), 2, "{details:?}");
        assert!(
            details[0].starts_with("compilation error: compilation failed: ERROR: <input>:1:"),
            "{}",
            details[0]
        );
        assert_eq!(details[1], "unrecognized failure policy: 'Sometimes'");
    }

    #[test]
    fn per_call_limit_is_an_expression_error() {
        let p = policy(
            "p",
            json!({"validations": [
                {"expression": "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))"},
            ]}),
        );
        let out = run(&[p], &[binding("b", "p", &["Deny"], Value::Null)], vec![]);
        assert_eq!(out.denials.len(), 1);
        assert!(
            out.denials[0].detail.starts_with("expression '[1,2,3")
                && out.denials[0].detail.ends_with(
                    "resulted in error: operation cancelled: actual cost limit exceeded"
                ),
            "{}",
            out.denials[0].detail
        );
    }

    #[test]
    fn go_json_escapes_html() {
        assert_eq!(go_json_string("a<b>&'"), "\"a\\u003cb\\u003e\\u0026'\"");
    }
}
