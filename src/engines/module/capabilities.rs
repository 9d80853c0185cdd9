//! Kubewarden's host capabilities (binding `kubewarden`), answered offline: what a policy
//! asks the host with a waPC `__host_call(binding, namespace, operation, payload)` or,
//! for a WASI policy, the `host.call` import (`wasi_host.rs`) taking the same four.
//!
//! - `tracing`/`log`: the policy's log line goes to kadmit's diagnostics (a policy fails
//!   when this call fails, so it always succeeds);
//! - `kubernetes`/`get_resource`, `list_resources_by_namespace`, `list_resources_all`:
//!   answered from the objects of the kinds the policy declares in
//!   `contextAwareResources`, as written in the configuration and the stream (a real
//!   cluster may hold more); any other kind is refused, as Kubewarden refuses it;
//! - `kubernetes`/`can_i`: the authorizer's "no opinion" (`allowed: false`, `denied:
//!   false`): kadmit has no RBAC to consult;
//! - `oci/*`, `net/*`, `crypto/*`: refused, each call with an error saying the capability
//!   needs the network (kadmit stays offline).

use super::labels::LabelSelector;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The binding every Kubewarden capability is called under.
pub const BINDING: &str = "kubewarden";

/// How many log lines of one call become diagnostics; more are counted, not kept.
pub const MAX_LOG_LINES: usize = 100;
/// How much of one log line is kept.
pub const MAX_LOG_LINE: usize = 4096;

/// A kind a policy may read (`contextAwareResources`), with what the run knows of it.
#[derive(Debug, Clone)]
pub struct KindObjects {
    pub api_version: String,
    pub kind: String,
    /// The resource name (plural), as the API server's NotFound message names it.
    pub resource: String,
    pub namespaced: bool,
    /// Every object of the group and kind, in input order.
    pub objects: Vec<Value>,
}

/// What a policy's host calls can see.
#[derive(Debug, Clone, Default)]
pub struct Host {
    pub kinds: Vec<KindObjects>,
    /// Where a namespaced object that names no namespace goes (`--namespace`, as kubectl
    /// would put it).
    pub default_namespace: String,
}

/// The level of a policy's log line, and where it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    Trace,
    Debug,
    Info,
    Warning,
    Error,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LogLine {
    pub level: LogLevel,
    pub message: String,
}

/// The log lines of one call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Logs {
    pub lines: Vec<LogLine>,
    /// Lines past [`MAX_LOG_LINES`].
    pub dropped: usize,
}

impl Host {
    /// Answers one host call: the response payload, or the error the policy receives.
    pub fn answer(
        &self,
        binding: &str,
        namespace: &str,
        operation: &str,
        payload: &[u8],
        logs: &mut Logs,
    ) -> Result<Vec<u8>, String> {
        if binding != BINDING {
            return Err(format!(
                "unknown host-call binding {binding:?}: kadmit answers only the {BINDING:?} binding"
            ));
        }
        let capability = format!("{namespace}/{operation}");
        match (namespace, operation) {
            ("tracing", "log") => {
                log(payload, logs);
                Ok(Vec::new())
            }
            ("kubernetes", "get_resource") => self.get_resource(&parse(payload, &capability)?),
            ("kubernetes", "list_resources_by_namespace") => {
                self.list(&parse(payload, &capability)?, true)
            }
            ("kubernetes", "list_resources_all") => self.list(&parse(payload, &capability)?, false),
            ("kubernetes", "can_i") => Ok(serde_json::to_vec(&json!({
                "allowed": false,
                "denied": false,
                "reason": "kadmit evaluates offline and has no authorizer to ask: no opinion",
            }))
            .expect("JSON serializes")),
            ("oci" | "net" | "crypto", _) => Err(format!(
                "host capability {capability} needs the network, and kadmit evaluates offline: it is not available"
            )),
            _ => Err(format!("unknown host capability {capability}")),
        }
    }

    fn readable(
        &self,
        query: &Map<String, Value>,
        capability: &str,
    ) -> Result<&KindObjects, String> {
        let api_version = text(query, "api_version");
        let kind = text(query, "kind");
        self.kinds
            .iter()
            .find(|k| k.api_version == api_version && k.kind == kind)
            .ok_or_else(|| {
                format!(
                    "kubernetes/{capability}: the policy may not read {api_version} {kind}: it is not among its contextAwareResources"
                )
            })
    }

    fn get_resource(&self, query: &Map<String, Value>) -> Result<Vec<u8>, String> {
        let kind = self.readable(query, "get_resource")?;
        let name = text(query, "name");
        let namespace = text(query, "namespace");
        let found = kind.objects.iter().find(|object| {
            metadata(object, "name") == name
                && (!kind.namespaced || self.namespace_of(object) == namespace)
        });
        match found {
            Some(object) => Ok(serde_json::to_vec(object).expect("JSON serializes")),
            None => Err(format!("{} {name:?} not found", kind.resource)),
        }
    }

    fn list(&self, query: &Map<String, Value>, by_namespace: bool) -> Result<Vec<u8>, String> {
        let capability = match by_namespace {
            true => "list_resources_by_namespace",
            false => "list_resources_all",
        };
        let kind = self.readable(query, capability)?;
        if by_namespace && !kind.namespaced {
            return Err(format!(
                "kubernetes/{capability}: {} {} is cluster-scoped: use list_resources_all",
                kind.api_version, kind.kind
            ));
        }
        let namespace = text(query, "namespace");
        let labels = LabelSelector::parse(text(query, "label_selector"))
            .map_err(|e| format!("kubernetes/{capability}: label_selector: {e}"))?;
        let fields = FieldSelector::parse(text(query, "field_selector"))
            .map_err(|e| format!("kubernetes/{capability}: field_selector: {e}"))?;
        let items: Vec<&Value> = kind
            .objects
            .iter()
            .filter(|o| !by_namespace || self.namespace_of(o) == namespace)
            .filter(|o| labels.matches(o.pointer("/metadata/labels")))
            .filter(|o| fields.matches(o))
            .collect();
        let list = json!({
            "apiVersion": kind.api_version,
            "kind": format!("{}List", kind.kind),
            "metadata": {},
            "items": items,
        });
        Ok(serde_json::to_vec(&list).expect("JSON serializes"))
    }
}

impl Host {
    /// An object's namespace, the default one when it names none.
    fn namespace_of<'a>(&'a self, object: &'a Value) -> &'a str {
        match metadata(object, "namespace") {
            "" => &self.default_namespace,
            namespace => namespace,
        }
    }
}

fn parse(payload: &[u8], capability: &str) -> Result<Map<String, Value>, String> {
    match serde_json::from_slice(payload) {
        Ok(Value::Object(query)) => Ok(query),
        Ok(_) => Err(format!("{capability}: the request must be a JSON object")),
        Err(e) => Err(format!("{capability}: the request is not JSON: {e}")),
    }
}

fn text<'a>(query: &'a Map<String, Value>, key: &str) -> &'a str {
    query.get(key).and_then(Value::as_str).unwrap_or("")
}

fn metadata<'a>(object: &'a Value, key: &str) -> &'a str {
    object
        .pointer(&format!("/metadata/{key}"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// A log line as the SDKs send it: `{"level", "message", …fields}` (the Rust SDK's
/// slog drain, the Go SDK's onelog writer); a line that is not such JSON is kept whole.
fn log(payload: &[u8], logs: &mut Logs) {
    if logs.lines.len() >= MAX_LOG_LINES {
        logs.dropped += 1;
        return;
    }
    let (level, message) = match serde_json::from_slice::<Value>(payload) {
        Ok(Value::Object(mut entry)) => {
            let level = entry
                .get("level")
                .and_then(Value::as_str)
                .map(level_of)
                .unwrap_or(LogLevel::Info);
            let message = match entry.shift_remove("message") {
                Some(Value::String(m)) => m,
                Some(other) => other.to_string(),
                None => String::new(),
            };
            entry.shift_remove("level");
            let fields: Vec<String> = entry.iter().map(|(k, v)| format!("{k}={v}")).collect();
            match fields.is_empty() {
                true => (level, message),
                false => (level, format!("{message} ({})", fields.join(", "))),
            }
        }
        _ => (
            LogLevel::Info,
            String::from_utf8_lossy(payload).trim().to_owned(),
        ),
    };
    let mut message = message;
    if message.len() > MAX_LOG_LINE {
        let cut = (0..=MAX_LOG_LINE)
            .rev()
            .find(|&i| message.is_char_boundary(i))
            .unwrap_or(0);
        message.truncate(cut);
        message.push('…');
    }
    logs.lines.push(LogLine { level, message });
}

fn level_of(name: &str) -> LogLevel {
    match name.to_ascii_lowercase().as_str() {
        "trace" => LogLevel::Trace,
        "debug" => LogLevel::Debug,
        "warn" | "warning" => LogLevel::Warning,
        "error" | "fatal" | "critical" => LogLevel::Error,
        _ => LogLevel::Info,
    }
}

/// A field selector over the fields every object has: `metadata.name` and
/// `metadata.namespace`, with `=`, `==` and `!=` (what the API server supports for
/// every kind).
struct FieldSelector(Vec<(String, bool, String)>);

impl FieldSelector {
    fn parse(text: &str) -> Result<FieldSelector, String> {
        let mut terms = Vec::new();
        for term in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let (field, equal, value) = if let Some((f, v)) = term.split_once("!=") {
                (f, false, v)
            } else if let Some((f, v)) = term.split_once("==") {
                (f, true, v)
            } else if let Some((f, v)) = term.split_once('=') {
                (f, true, v)
            } else {
                return Err(format!("invalid selector: {term:?}"));
            };
            let field = field.trim();
            if !matches!(field, "metadata.name" | "metadata.namespace") {
                return Err(format!(
                    "field label not supported: {field} (kadmit knows metadata.name and metadata.namespace)"
                ));
            }
            terms.push((field.to_owned(), equal, value.trim().to_owned()));
        }
        Ok(FieldSelector(terms))
    }

    fn matches(&self, object: &Value) -> bool {
        self.0.iter().all(|(field, equal, value)| {
            let key = field.trim_start_matches("metadata.");
            (metadata(object, key) == value) == *equal
        })
    }
}

/// The kinds a policy declared it reads, from the run's objects.
pub fn host_for(kinds: Vec<KindObjects>, default_namespace: &str) -> Host {
    let mut unique: BTreeMap<(String, String), KindObjects> = BTreeMap::new();
    for kind in kinds {
        unique
            .entry((kind.api_version.clone(), kind.kind.clone()))
            .or_insert(kind);
    }
    Host {
        kinds: unique.into_values().collect(),
        default_namespace: default_namespace.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host() -> Host {
        host_for(
            vec![KindObjects {
                api_version: "v1".into(),
                kind: "ConfigMap".into(),
                resource: "configmaps".into(),
                namespaced: true,
                objects: vec![
                    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "prod", "labels": {"tier": "web"}}}),
                    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "dev"}}),
                    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}),
                ],
            }],
            "default",
        )
    }

    fn call(namespace: &str, operation: &str, payload: Value) -> Result<Value, String> {
        let bytes = serde_json::to_vec(&payload).unwrap();
        host()
            .answer(BINDING, namespace, operation, &bytes, &mut Logs::default())
            .map(|b| serde_json::from_slice(&b).unwrap())
    }

    #[test]
    fn get_resource_finds_the_object_in_its_namespace() {
        let got = call(
            "kubernetes",
            "get_resource",
            json!({"api_version": "v1", "kind": "ConfigMap", "name": "a", "namespace": "dev"}),
        )
        .unwrap();
        assert_eq!(got["metadata"]["namespace"], "dev");
        let missing = call(
            "kubernetes",
            "get_resource",
            json!({"api_version": "v1", "kind": "ConfigMap", "name": "b", "namespace": "dev"}),
        );
        assert_eq!(missing.unwrap_err(), "configmaps \"b\" not found");
        let secret = call(
            "kubernetes",
            "get_resource",
            json!({"api_version": "v1", "kind": "Secret", "name": "a", "namespace": "dev"}),
        );
        assert!(secret
            .unwrap_err()
            .contains("not among its contextAwareResources"));
    }

    #[test]
    fn lists_filter_by_namespace_and_selectors() {
        let all = call(
            "kubernetes",
            "list_resources_all",
            json!({"api_version": "v1", "kind": "ConfigMap"}),
        )
        .unwrap();
        assert_eq!(all["kind"], "ConfigMapList");
        assert_eq!(all["items"].as_array().unwrap().len(), 3);
        let prod = call(
            "kubernetes",
            "list_resources_by_namespace",
            json!({"api_version": "v1", "kind": "ConfigMap", "namespace": "prod"}),
        )
        .unwrap();
        assert_eq!(prod["items"].as_array().unwrap().len(), 1);
        let web = call("kubernetes", "list_resources_all", json!({"api_version": "v1", "kind": "ConfigMap", "label_selector": "tier in (web,api)"})).unwrap();
        assert_eq!(web["items"][0]["metadata"]["namespace"], "prod");
        let dev = call("kubernetes", "list_resources_all", json!({"api_version": "v1", "kind": "ConfigMap", "field_selector": "metadata.namespace!=prod"})).unwrap();
        assert_eq!(dev["items"][0]["metadata"]["namespace"], "dev");
    }

    #[test]
    fn network_capabilities_are_refused_per_call() {
        for (ns, op) in [
            ("oci", "v1/verify"),
            ("net", "v1/dns_lookup_host"),
            ("crypto", "v1/is_certificate_trusted"),
        ] {
            let error = call(ns, op, json!("x")).unwrap_err();
            assert!(
                error.contains(&format!("host capability {ns}/{op} needs the network")),
                "{error}"
            );
        }
        assert_eq!(
            call("kubernetes", "can_i", json!({})).unwrap()["allowed"],
            false
        );
    }

    #[test]
    fn log_lines_keep_level_message_and_fields() {
        let mut logs = Logs::default();
        let entry = br#"{"level":"warning","message":"careful","line":3}"#;
        assert_eq!(
            host().answer(BINDING, "tracing", "log", entry, &mut logs),
            Ok(vec![])
        );
        assert_eq!(
            logs.lines,
            vec![LogLine {
                level: LogLevel::Warning,
                message: "careful (line=3)".into()
            }]
        );
        for _ in 0..MAX_LOG_LINES + 5 {
            let _ = host().answer(BINDING, "tracing", "log", b"x", &mut logs);
        }
        assert_eq!(logs.lines.len(), MAX_LOG_LINES);
        assert_eq!(logs.dropped, 6);
    }
}
