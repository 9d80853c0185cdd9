//! The `kadmit.dev/v1alpha1` `AdmissionModule` kind: what to run, how to talk to it, what
//! it sees and how far it may go. Every problem is reported with its field path.

use super::limits::{
    format_bytes, parse_duration, parse_quantity, Limits, DEFAULT_MEMORY_LIMIT, DEFAULT_TIMEOUT,
    MAX_MEMORY_LIMIT,
};
use kadmit_match::matching::Match;
use serde_json::{Map, Value};

/// How requests and responses are shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `{"request", "settings"}` in, `{"response", "error"}` out, export `validate`.
    K8sWasi,
    /// Kubewarden WASI policies: argv `policy.wasm validate`, `_start`, a ValidationResponse.
    KubewardenWasi,
    /// Kubewarden waPC policies: the `validate` operation through `__guest_call`, a
    /// ValidationResponse; host capabilities through `__host_call`.
    KubewardenWapc,
}

impl Protocol {
    pub const ALL: [Protocol; 3] = [
        Protocol::K8sWasi,
        Protocol::KubewardenWasi,
        Protocol::KubewardenWapc,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Protocol::K8sWasi => "k8s-wasi",
            Protocol::KubewardenWasi => "kubewarden-wasi",
            Protocol::KubewardenWapc => "kubewarden-wapc",
        }
    }

    /// Kubewarden's protocols: `{"request", "settings"}` in, a ValidationResponse out.
    pub fn is_kubewarden(self) -> bool {
        self != Protocol::K8sWasi
    }

    pub fn from_name(text: &str) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.name() == text)
    }
}

/// What runs: a WebAssembly file (relative to the configuration) or a command.
#[derive(Debug, Clone, PartialEq)]
pub enum Program {
    Wasm(String),
    Exec(Vec<String>),
}

/// A decoded `spec`.
#[derive(Debug, Clone)]
pub struct ModuleSpec {
    pub program: Program,
    pub protocol: Protocol,
    /// `None` when not configured: the request then carries no `settings` key.
    pub settings: Option<Value>,
    pub matcher: Match,
    pub mutating: bool,
    pub limits: Limits,
    /// `contextAwareResources`: the kinds a Kubewarden policy may read through the
    /// host, as (apiVersion, kind).
    pub context_aware: Vec<(String, String)>,
}

const FIELDS: [&str; 9] = [
    "module",
    "exec",
    "protocol",
    "settings",
    "match",
    "mutating",
    "timeout",
    "memoryLimit",
    "contextAwareResources",
];

impl ModuleSpec {
    /// Reads the `spec` of an `AdmissionModule`; every problem, as `field: message`.
    pub fn from_resource(value: &Value) -> Result<ModuleSpec, Vec<String>> {
        let mut problems = Vec::new();
        let empty = Map::new();
        let spec = match value.get("spec") {
            Some(Value::Object(spec)) => spec,
            None | Some(Value::Null) => &empty,
            Some(_) => return Err(vec!["spec: Invalid value: must be a mapping".into()]),
        };
        for key in spec.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
            problems.push(format!(
                "spec.{key}: unknown field (known: {})",
                FIELDS.join(", ")
            ));
        }
        let program = program(spec, &mut problems);
        let protocol = match spec.get("protocol") {
            None | Some(Value::Null) => Protocol::K8sWasi,
            Some(Value::String(text)) => Protocol::from_name(text).unwrap_or_else(|| {
                problems.push(format!(
                    "spec.protocol: Unsupported value: {text:?}: supported values: \"k8s-wasi\", \"kubewarden-wasi\", \"kubewarden-wapc\""
                ));
                Protocol::K8sWasi
            }),
            Some(_) => {
                problems.push("spec.protocol: Invalid value: must be a string".into());
                Protocol::K8sWasi
            }
        };
        let settings = spec.get("settings").filter(|v| !v.is_null()).cloned();
        let matcher = Match::from_spec(spec.get("match")).unwrap_or_else(|e| {
            problems.push(format!("spec.{e}"));
            Match::default()
        });
        let mutating = match spec.get("mutating") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                problems.push("spec.mutating: Invalid value: must be true or false".into());
                false
            }
        };
        let limits = limits(spec, &program, &mut problems);
        let context_aware = context_aware(spec.get("contextAwareResources"), &mut problems);
        if let (Some(Program::Exec(_)), Protocol::KubewardenWapc) = (&program, protocol) {
            problems.push("spec.exec: Invalid value: the kubewarden-wapc protocol needs a WebAssembly module (spec.module)".into());
        }
        // Without a program there is a problem saying so.
        let (Some(program), true) = (program, problems.is_empty()) else {
            return Err(problems);
        };
        Ok(ModuleSpec {
            program,
            protocol,
            settings,
            matcher,
            mutating,
            limits,
            context_aware,
        })
    }
}

/// `contextAwareResources: [{apiVersion, kind}]`, Kubewarden's list of what a policy
/// may read.
pub fn context_aware(value: Option<&Value>, problems: &mut Vec<String>) -> Vec<(String, String)> {
    let items = match value {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Array(items)) => items,
        Some(_) => {
            problems.push(
                "spec.contextAwareResources: Invalid value: must be a list of {apiVersion, kind}"
                    .into(),
            );
            return Vec::new();
        }
    };
    let mut kinds = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let field = |key: &str| {
            item.get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        match (field("apiVersion"), field("kind")) {
            (Some(api_version), Some(kind)) => {
                kinds.push((api_version.to_owned(), kind.to_owned()))
            }
            _ => problems.push(format!(
                "spec.contextAwareResources[{i}]: Required value: apiVersion and kind"
            )),
        }
    }
    kinds
}

fn program(spec: &Map<String, Value>, problems: &mut Vec<String>) -> Option<Program> {
    let module = spec.get("module").filter(|v| !v.is_null());
    let exec = spec.get("exec").filter(|v| !v.is_null());
    match (module, exec) {
        (Some(_), Some(_)) => {
            problems.push(
                "spec: Invalid value: spec.module and spec.exec are mutually exclusive: give one"
                    .into(),
            );
            None
        }
        (None, None) => {
            problems.push("spec: Required value: spec.module or spec.exec".into());
            None
        }
        (Some(Value::String(path)), None) if !path.is_empty() => Some(Program::Wasm(path.clone())),
        (Some(_), None) => {
            problems.push(
                "spec.module: Invalid value: must be the path of a .wasm file, relative to this configuration".into(),
            );
            None
        }
        (None, Some(exec)) => exec_command(exec, problems).map(Program::Exec),
    }
}

fn exec_command(exec: &Value, problems: &mut Vec<String>) -> Option<Vec<String>> {
    let Value::Object(fields) = exec else {
        problems.push("spec.exec: Invalid value: must be a mapping with a command list".into());
        return None;
    };
    for key in fields.keys().filter(|k| *k != "command") {
        problems.push(format!("spec.exec.{key}: unknown field (known: command)"));
    }
    match fields.get("command") {
        Some(Value::Array(items)) if !items.is_empty() => {
            let mut command = Vec::new();
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) if !s.is_empty() => command.push(s.clone()),
                    _ => problems.push(format!(
                        "spec.exec.command[{i}]: Invalid value: must be a non-empty string"
                    )),
                }
            }
            (command.len() == items.len()).then_some(command)
        }
        None | Some(Value::Null) => {
            problems
                .push("spec.exec.command: Required value: the program and its arguments".into());
            None
        }
        Some(_) => {
            problems.push(
                "spec.exec.command: Invalid value: must be a non-empty list of strings".into(),
            );
            None
        }
    }
}

fn limits(
    spec: &Map<String, Value>,
    program: &Option<Program>,
    problems: &mut Vec<String>,
) -> Limits {
    let timeout = match spec.get("timeout") {
        None | Some(Value::Null) => DEFAULT_TIMEOUT,
        Some(Value::String(text)) => match parse_duration(text) {
            Ok(d) if !d.is_zero() => d,
            Ok(_) => {
                problems.push("spec.timeout: Invalid value: \"0\": must be positive".into());
                DEFAULT_TIMEOUT
            }
            Err(e) => {
                problems.push(format!("spec.timeout: Invalid value: {e}"));
                DEFAULT_TIMEOUT
            }
        },
        Some(_) => {
            problems.push(
                "spec.timeout: Invalid value: must be a duration string such as \"500ms\" or \"2s\""
                    .into(),
            );
            DEFAULT_TIMEOUT
        }
    };
    let memory = match spec.get("memoryLimit") {
        None | Some(Value::Null) => DEFAULT_MEMORY_LIMIT,
        Some(_) if matches!(program, Some(Program::Exec(_))) => {
            problems.push(
                "spec.memoryLimit: Forbidden: applies to WebAssembly modules only; kadmit cannot bound an exec module's memory".into(),
            );
            DEFAULT_MEMORY_LIMIT
        }
        Some(value) => {
            let parsed = match value {
                Value::String(text) => parse_quantity(text),
                Value::Number(n) => n.as_u64().ok_or_else(|| format!("invalid quantity {n}")),
                _ => Err("must be a quantity such as \"64Mi\"".into()),
            };
            match parsed {
                Ok(bytes) if (1..=MAX_MEMORY_LIMIT).contains(&bytes) => bytes,
                Ok(bytes) => {
                    problems.push(format!(
                        "spec.memoryLimit: Invalid value: {}: must be between 1 and {}",
                        format_bytes(bytes),
                        format_bytes(MAX_MEMORY_LIMIT)
                    ));
                    DEFAULT_MEMORY_LIMIT
                }
                Err(e) => {
                    problems.push(format!("spec.memoryLimit: Invalid value: {e}"));
                    DEFAULT_MEMORY_LIMIT
                }
            }
        }
    };
    Limits { timeout, memory }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    fn spec(spec: Value) -> Result<ModuleSpec, Vec<String>> {
        ModuleSpec::from_resource(&json!({"spec": spec}))
    }

    #[test]
    fn defaults_fill_what_is_not_configured() {
        let s = spec(json!({"module": "m.wasm"})).unwrap();
        assert_eq!(s.program, Program::Wasm("m.wasm".into()));
        assert_eq!(s.protocol, Protocol::K8sWasi);
        assert_eq!(s.settings, None);
        assert!(!s.mutating);
        assert_eq!(s.limits, Limits::default());
    }

    #[test]
    fn every_field_is_read() {
        let s = spec(json!({
            "exec": {"command": ["./deny.sh", "--strict"]},
            "protocol": "kubewarden-wasi",
            "settings": {"a": [1]},
            "match": {"kinds": [{"apiGroups": [""], "kinds": ["ConfigMap"]}]},
            "mutating": true,
            "timeout": "250ms",
        }))
        .unwrap();
        assert_eq!(
            s.program,
            Program::Exec(vec!["./deny.sh".into(), "--strict".into()])
        );
        assert_eq!(s.protocol, Protocol::KubewardenWasi);
        assert_eq!(s.settings, Some(json!({"a": [1]})));
        assert!(s.mutating);
        assert_eq!(s.limits.timeout, Duration::from_millis(250));
    }

    #[test]
    fn empty_settings_are_sent_as_configured() {
        let s = spec(json!({"module": "m.wasm", "settings": {}})).unwrap();
        assert_eq!(s.settings, Some(json!({})));
    }

    #[test]
    fn problems_name_their_fields_all_at_once() {
        let problems = spec(json!({
            "module": "m.wasm",
            "exec": {"command": ["x"]},
            "protocol": "wapc",
            "timeout": "soon",
            "memoryLimit": "lots",
            "mutating": "yes",
            "memorylimit": "64Mi",
        }))
        .unwrap_err();
        let text = problems.join("\n");
        for field in [
            "spec.memorylimit: unknown field",
            "spec: Invalid value: spec.module and spec.exec are mutually exclusive",
            "spec.protocol: Unsupported value: \"wapc\"",
            "\"kubewarden-wapc\"",
            "spec.timeout: Invalid value: invalid duration \"soon\"",
            "spec.memoryLimit: Invalid value: invalid quantity \"lots\"",
            "spec.mutating: Invalid value",
        ] {
            assert!(text.contains(field), "{field:?} missing from:\n{text}");
        }
    }

    #[test]
    fn a_module_needs_something_to_run() {
        assert_eq!(
            spec(json!({})).unwrap_err(),
            vec!["spec: Required value: spec.module or spec.exec"]
        );
        assert!(ModuleSpec::from_resource(&json!({})).is_err());
        let problems = spec(json!({"exec": {"command": []}})).unwrap_err();
        assert!(problems[0].starts_with("spec.exec.command: Invalid value"));
        let problems = spec(json!({"exec": {"command": ["ok", 3]}})).unwrap_err();
        assert!(problems[0].starts_with("spec.exec.command[1]: Invalid value"));
    }

    #[test]
    fn limits_are_checked() {
        assert!(spec(json!({"module": "m.wasm", "timeout": "0"})).is_err());
        assert!(spec(json!({"module": "m.wasm", "timeout": 5})).is_err());
        assert!(spec(json!({"module": "m.wasm", "memoryLimit": "8Gi"})).is_err());
        let s = spec(json!({"module": "m.wasm", "memoryLimit": 1048576})).unwrap();
        assert_eq!(s.limits.memory, 1 << 20);
        let problems = spec(json!({"exec": {"command": ["x"]}, "memoryLimit": "1Mi"})).unwrap_err();
        assert!(problems[0].starts_with("spec.memoryLimit: Forbidden"));
    }

    #[test]
    fn match_problems_carry_the_spec_prefix() {
        let problems =
            spec(json!({"module": "m.wasm", "match": {"kinds": "ConfigMap"}})).unwrap_err();
        assert!(problems[0].starts_with("spec.match.kinds"), "{problems:?}");
    }
}
