//! Kubewarden's own configuration kinds, `policies.kubewarden.io/v1` `ClusterAdmissionPolicy`
//! and `AdmissionPolicy`, read into the module spec kadmit runs: the policy's `module`
//! (a local `file://` path; kadmit does not pull), `settings`, `mutating`,
//! `contextAwareResources`, and the webhook Kubewarden registers for it: `rules`,
//! `namespaceSelector` (ClusterAdmissionPolicy), `objectSelector`, `matchPolicy` and
//! `matchConditions`, matched as the API server matches a webhook. An AdmissionPolicy
//! applies only in its own namespace, as Kubewarden scopes its webhook.

use super::limits::{Limits, DEFAULT_MEMORY_LIMIT};
use super::spec::{context_aware, ModuleSpec, Program, Protocol};
use kadmit_match::matching::Match;
use kadmit_match::Gvk;
use kadmit_policy::compiled::PolicyCore;
use kadmit_policy::conditions::{evaluate, ConditionsResult};
use kadmit_policy::matching::{Gvr, MatchResources, Request, Table};
use kadmit_schema::cel::expression::Activation;
use serde_json::{json, Map, Value};
use std::time::Duration;

pub const ADMISSION_POLICY: &str = "AdmissionPolicy";
/// The version of `policies.kubewarden.io` kadmit reads.
const API_VERSION: &str = "policies.kubewarden.io/v1";

/// The webhook Kubewarden registers for a policy: which requests reach it.
pub struct Webhook {
    pub match_resources: MatchResources,
    /// The `matchConditions`, compiled (none: `None`).
    pub conditions: Option<PolicyCore>,
}

/// Fields kadmit reads.
const READ: [&str; 11] = [
    "module",
    "settings",
    "rules",
    "mutating",
    "namespaceSelector",
    "objectSelector",
    "matchPolicy",
    "matchConditions",
    "contextAwareResources",
    "mode",
    "timeoutEvalSeconds",
];
/// Fields that concern the cluster's webhook or Kubewarden's deployment, not what the
/// policy decides: read and not used.
const CLUSTER_ONLY: [&str; 8] = [
    "policyServer",
    "failurePolicy",
    "backgroundAudit",
    "sideEffects",
    "timeoutSeconds",
    "message",
    "allowInsideAdmissionControllerNamespace",
    "priorityClassName",
];

/// Reads a Kubewarden policy: its module path (relative, inside the configuration root),
/// the spec kadmit runs, and its webhook; every problem as `field: message`.
pub fn read(policy: &Value) -> Result<(ModuleSpec, Webhook), Vec<String>> {
    let mut problems = Vec::new();
    let kind = policy.get("kind").and_then(Value::as_str).unwrap_or("");
    let api_version = policy
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    if api_version != API_VERSION {
        problems.push(format!(
            "{api_version} {kind} is not a version kadmit reads (known: {API_VERSION})"
        ));
    }
    let empty = Map::new();
    let spec = policy
        .get("spec")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for key in spec.keys() {
        if !(READ.contains(&key.as_str()) || CLUSTER_ONLY.contains(&key.as_str())) {
            problems.push(format!("spec.{key}: unknown field"));
        } else if kind == ADMISSION_POLICY && key == "namespaceSelector" {
            problems.push(format!(
                "spec.{key}: Forbidden: an AdmissionPolicy applies in its own namespace only"
            ));
        }
    }
    let path = module_path(spec.get("module"), &mut problems);
    if let Some(mode) = spec.get("mode").and_then(Value::as_str) {
        if mode != "protect" {
            problems.push(format!(
                "spec.mode: Unsupported value: {mode:?}: kadmit enforces policies (\"protect\"); monitor mode only logs in a cluster, so run this policy in protect mode or leave it out"
            ));
        }
    }
    let mutating = match spec.get("mutating") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            problems.push("spec.mutating: Invalid value: must be true or false".into());
            false
        }
    };
    let timeout = match spec.get("timeoutEvalSeconds") {
        None | Some(Value::Null) => super::limits::DEFAULT_TIMEOUT,
        Some(value) => {
            match value.as_u64().filter(|s| *s > 0) {
                Some(seconds) => Duration::from_secs(seconds),
                None => {
                    problems.push("spec.timeoutEvalSeconds: Invalid value: must be a positive number of seconds".into());
                    super::limits::DEFAULT_TIMEOUT
                }
            }
        }
    };
    let context_aware = context_aware(spec.get("contextAwareResources"), &mut problems);
    let webhook = webhook(policy, spec, kind, &mut problems);
    let (Some(path), Some(webhook), true) = (path, webhook, problems.is_empty()) else {
        return Err(problems);
    };
    let module = ModuleSpec {
        program: Program::Wasm(path),
        // The module itself says whether it is waPC or WASI (see `mod.rs`).
        protocol: Protocol::KubewardenWapc,
        settings: Some(
            spec.get("settings")
                .filter(|s| !s.is_null())
                .cloned()
                .unwrap_or_else(|| json!({})),
        ),
        matcher: Match::default(),
        mutating,
        limits: Limits {
            timeout,
            memory: DEFAULT_MEMORY_LIMIT,
        },
        context_aware,
    };
    Ok((module, webhook))
}

/// `file://<path>`, relative to the configuration; a remote module is refused.
fn module_path(value: Option<&Value>, problems: &mut Vec<String>) -> Option<String> {
    let Some(Value::String(uri)) = value else {
        problems.push("spec.module: Required value: the policy's module, as file://<path relative to this configuration>".into());
        return None;
    };
    if let Some(path) = uri.strip_prefix("file://").filter(|p| !p.is_empty()) {
        return Some(path.to_owned());
    }
    problems.push(format!(
        "spec.module: Unsupported value: {uri:?}: kadmit evaluates offline and does not pull policies; fetch it with `kwctl pull {uri}` (or download it), then point spec.module at the local file as file://<path relative to this configuration>"
    ));
    None
}

/// The webhook's `MatchResources`: the rules, the selectors (an AdmissionPolicy's
/// namespace as its namespace selector) and the match policy; and the match conditions.
fn webhook(
    policy: &Value,
    spec: &Map<String, Value>,
    kind: &str,
    problems: &mut Vec<String>,
) -> Option<Webhook> {
    let namespace_selector = if kind == ADMISSION_POLICY {
        let namespace = policy
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or("default");
        json!({"matchLabels": {"kubernetes.io/metadata.name": namespace}})
    } else {
        spec.get("namespaceSelector").cloned().unwrap_or(json!({}))
    };
    let mut constraints = json!({
        "resourceRules": spec.get("rules").cloned().unwrap_or(json!([])),
        "namespaceSelector": namespace_selector,
        "objectSelector": spec.get("objectSelector").cloned().unwrap_or(json!({})),
    });
    if let Some(policy) = spec.get("matchPolicy") {
        constraints["matchPolicy"] = policy.clone();
    }
    let match_resources = match MatchResources::from_value(&constraints) {
        Ok(m) => Some(m),
        Err(e) => {
            problems.push(format!("spec: {e}"));
            None
        }
    };
    let conditions = match spec.get("matchConditions") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) if items.is_empty() => None,
        Some(Value::Array(items)) => {
            let core = PolicyCore::from_object(&json!({"spec": {"matchConditions": items}}));
            for (i, condition) in core.match_conditions.iter().enumerate() {
                if let Err(error) = &condition.expression.program {
                    problems.push(format!(
                        "spec.matchConditions[{i}].expression: Invalid value: {error}"
                    ));
                }
            }
            Some(core)
        }
        Some(_) => {
            problems.push("spec.matchConditions: Invalid value: must be a list".into());
            None
        }
    };
    Some(Webhook {
        match_resources: match_resources?,
        conditions,
    })
}

/// What the webhook's rules and selectors see of one request.
pub struct Subject<'a> {
    pub operation: &'a str,
    pub group: &'a str,
    pub version: &'a str,
    pub kind: &'a str,
    pub resource: &'a str,
    pub name: &'a str,
    pub namespace: &'a str,
    pub object: &'a Value,
    pub namespace_object: Option<&'a Value>,
}

impl Webhook {
    /// Whether the webhook's rules and selectors take the request (`Matcher.Matches`).
    pub fn matches(&self, subject: &Subject) -> Result<bool, String> {
        let deleting = subject.operation == "DELETE";
        let request = Request {
            operation: subject.operation,
            kind: Gvk {
                group: subject.group.to_owned(),
                version: subject.version.to_owned(),
                kind: subject.kind.to_owned(),
            },
            resource: Gvr::new(subject.group, subject.version, subject.resource),
            subresource: "",
            name: subject.name,
            namespace: subject.namespace,
            object: (!deleting).then_some(subject.object),
            old_object: (subject.operation != "CREATE").then_some(subject.object),
            namespace_object: subject.namespace_object,
        };
        Ok(self
            .match_resources
            .matches(&request, &Table::builtin())?
            .is_some())
    }

    /// Whether the `matchConditions` let the request through (all true, or none): a
    /// false one skips the policy; an error is the policy's failure.
    pub fn conditions_pass(&self, admission_request: &Value) -> Result<bool, String> {
        let Some(core) = &self.conditions else {
            return Ok(true);
        };
        let field = |key: &str| admission_request.get(key).cloned().unwrap_or(Value::Null);
        let activation = Activation::new()
            .with("object", field("object"))
            .with("oldObject", field("oldObject"))
            .with("request", admission_request.clone())
            .with("authorizer", Value::Null);
        match evaluate(core, &activation) {
            ConditionsResult::Matches => Ok(true),
            ConditionsResult::NotMatched { .. } => Ok(false),
            ConditionsResult::Error(e) => Err(format!("spec.matchConditions: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(policy: Value) -> String {
        read(&policy).err().expect("refused").join("\n")
    }

    fn policy(kind: &str, spec: Value) -> Value {
        json!({"apiVersion": API_VERSION, "kind": kind, "metadata": {"name": "p", "namespace": "prod"}, "spec": spec})
    }

    #[test]
    fn a_policy_is_read_into_a_module_spec() {
        let (spec, _) = read(&policy(
            "ClusterAdmissionPolicy",
            json!({"module": "file://p.wasm", "mutating": true, "timeoutEvalSeconds": 3,
                   "contextAwareResources": [{"apiVersion": "v1", "kind": "Secret"}]}),
        ))
        .ok()
        .unwrap();
        assert_eq!(spec.program, Program::Wasm("p.wasm".into()));
        assert!(spec.mutating);
        assert_eq!(spec.settings, Some(json!({})));
        assert_eq!(spec.limits.timeout, Duration::from_secs(3));
        assert_eq!(spec.context_aware, vec![("v1".into(), "Secret".into())]);
    }

    #[test]
    fn what_kadmit_cannot_do_is_said_all_at_once() {
        let text = problems(policy(
            "AdmissionPolicy",
            json!({"module": "https://example.com/p.wasm", "mode": "monitor",
                   "namespaceSelector": {}, "colour": "blue",
                   "matchConditions": [{"name": "bad", "expression": "object.("}]}),
        ));
        for expected in [
            "spec.module: Unsupported value: \"https://example.com/p.wasm\": kadmit evaluates offline and does not pull policies; fetch it with `kwctl pull https://example.com/p.wasm`",
            "spec.mode: Unsupported value: \"monitor\"",
            "spec.namespaceSelector: Forbidden: an AdmissionPolicy applies in its own namespace only",
            "spec.colour: unknown field",
            "spec.matchConditions[0].expression: Invalid value:",
        ] {
            assert!(text.contains(expected), "{expected:?} missing from:\n{text}");
        }
        let old = json!({"apiVersion": "policies.kubewarden.io/v1alpha2", "kind": "ClusterAdmissionPolicy", "spec": {"module": "file://p.wasm"}});
        assert!(problems(old)
            .contains("is not a version kadmit reads (known: policies.kubewarden.io/v1)"));
    }
}
