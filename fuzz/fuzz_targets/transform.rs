//! The whole `kadmit transform` (`kadmit::run::run`) on a fuzzed stream with a fuzzed rule
//! in front of it.
//!
//! Input: `HEAD NUL STREAM`, or only `STREAM` when there is no NUL byte. HEAD's first
//! byte picks a rule template (KubeMod Patch or Reject ModRule, Gatekeeper Assign,
//! AssignMetadata, ModifySet or AssignImage); the rest of HEAD, split on 0x1F (ASCII unit
//! separator), fills the template's fields in order (missing fields take a default). The
//! rule is written as a YAML document with kadmit's encoder and put before STREAM.
//!
//! A panic is a crash; so is a successful run (exit 0) whose output kadmit cannot read
//! back. The run is confined: configuration paths resolve in an empty directory, exec
//! modules are not allowed from the stream, and every engine keeps its own limits.
//!
//! `KADMIT_FUZZ_DEBUG=1` prints the assembled input, the output and the diagnostics of
//! each run (for reproducing an artifact).

#![no_main]

use kadmit::run::{run, Mode, Options};
use kadmit::testing::core::decode::decode_all;
use kadmit::testing::io::encode::{Encoder, Format};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// Larger inputs are skipped: kadmit's own limits bound everything below this.
const MAX_INPUT: usize = 64 << 10;

/// An empty directory for `config_root`: nothing from the repository or the working
/// directory can be read by a fuzzed reference to a file (a module's `spec.module`, a
/// PolicySet's paths). kadmit never writes there, so every run shares one.
fn empty_root() -> PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = std::env::temp_dir().join("kadmit-fuzz-empty-root");
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let empty = std::fs::read_dir(&dir).is_ok_and(|mut entries| entries.next().is_none());
        assert!(empty, "{} must be an empty directory", dir.display());
        dir
    })
    .clone()
}

/// `field` parsed as JSON when it is JSON, else the string itself.
fn json_or_string(field: &str) -> Value {
    serde_json::from_str(field).unwrap_or_else(|_| Value::String(field.to_owned()))
}

/// The rule HEAD describes.
fn rule(head: &[u8]) -> Option<Value> {
    let (&which, rest) = head.split_first()?;
    let rest = std::str::from_utf8(rest).ok()?;
    let fields: Vec<&str> = rest.split('\u{1f}').collect();
    let field = |i: usize, default: &str| -> String {
        fields
            .get(i)
            .filter(|f| !f.is_empty())
            .map_or(default, |f| *f)
            .to_owned()
    };
    let gatekeeper_match = json!({
        "scope": "*",
        "kinds": [{"apiGroups": ["*"], "kinds": ["*"]}],
    });
    let apply_to = json!([
        {"groups": [""], "kinds": ["ConfigMap", "Pod", "Service"], "versions": ["v1"]},
        {"groups": ["apps"], "kinds": ["Deployment"], "versions": ["v1"]},
    ]);
    let rule = match which % 6 {
        // ModRule Patch: select, matchValue, op, path, value, patch select.
        0 => {
            let mut patch = json!({
                "op": field(2, "add"),
                "path": field(3, "/metadata/labels/fuzz"),
                "value": field(4, "x"),
            });
            if let Some(select) = fields.get(5).filter(|s| !s.is_empty()) {
                patch["select"] = json!(select);
            }
            json!({
                "apiVersion": "api.kubemod.io/v1beta1",
                "kind": "ModRule",
                "metadata": {"name": "fuzz", "namespace": "default"},
                "spec": {
                    "type": "Patch",
                    "match": [{"select": field(0, "$.kind"), "matchValue": field(1, "ConfigMap")}],
                    "patch": [patch],
                },
            })
        }
        // ModRule Reject: select, matchRegex, rejectMessage.
        1 => json!({
            "apiVersion": "api.kubemod.io/v1beta1",
            "kind": "ModRule",
            "metadata": {"name": "fuzz", "namespace": "default"},
            "spec": {
                "type": "Reject",
                "match": [{"select": field(0, "$.kind"), "matchRegex": field(1, ".*")}],
                "rejectMessage": field(2, "no {{ .Target.metadata.name }}"),
            },
        }),
        // Assign: location, value (JSON, else a string), pathTests (JSON).
        2 => {
            let mut parameters = json!({"assign": {"value": json_or_string(&field(1, "x"))}});
            if let Some(tests) = fields.get(2).filter(|s| !s.is_empty()) {
                parameters["pathTests"] = json_or_string(tests);
            }
            json!({
                "apiVersion": "mutations.gatekeeper.sh/v1",
                "kind": "Assign",
                "metadata": {"name": "fuzz"},
                "spec": {
                    "applyTo": apply_to,
                    "match": gatekeeper_match,
                    "location": field(0, "spec.x"),
                    "parameters": parameters,
                },
            })
        }
        // AssignMetadata: location, value.
        3 => json!({
            "apiVersion": "mutations.gatekeeper.sh/v1",
            "kind": "AssignMetadata",
            "metadata": {"name": "fuzz"},
            "spec": {
                "match": gatekeeper_match,
                "location": field(0, "metadata.labels.fuzz"),
                "parameters": {"assign": {"value": json_or_string(&field(1, "x"))}},
            },
        }),
        // ModifySet: location, operation, values (JSON list, else one string).
        4 => {
            let values = match json_or_string(&field(2, "x")) {
                Value::Array(items) => Value::Array(items),
                other => json!([other]),
            };
            json!({
                "apiVersion": "mutations.gatekeeper.sh/v1",
                "kind": "ModifySet",
                "metadata": {"name": "fuzz"},
                "spec": {
                    "applyTo": apply_to,
                    "match": gatekeeper_match,
                    "location": field(0, "spec.containers[name: *].args"),
                    "parameters": {
                        "operation": field(1, "merge"),
                        "values": {"fromList": values},
                    },
                },
            })
        }
        // AssignImage: location, assignDomain, assignPath, assignTag.
        _ => {
            let mut parameters = serde_json::Map::new();
            for (i, name) in [(1, "assignDomain"), (2, "assignPath"), (3, "assignTag")] {
                if let Some(value) = fields.get(i).filter(|s| !s.is_empty()) {
                    parameters.insert(name.into(), json!(value));
                }
            }
            if parameters.is_empty() {
                parameters.insert("assignDomain".into(), json!("registry.example.com"));
            }
            json!({
                "apiVersion": "mutations.gatekeeper.sh/v1alpha1",
                "kind": "AssignImage",
                "metadata": {"name": "fuzz"},
                "spec": {
                    "applyTo": apply_to,
                    "match": gatekeeper_match,
                    "location": field(0, "spec.containers[name: *].image"),
                    "parameters": parameters,
                },
            })
        }
    };
    Some(rule)
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let input = match data.iter().position(|&b| b == 0) {
        Some(nul) => {
            let (head, stream) = (&data[..nul], &data[nul + 1..]);
            let Some(rule) = rule(head) else {
                return;
            };
            let mut encoder = Encoder::new(Format::Yaml);
            encoder.push(&rule);
            let mut input = encoder.finish(None, &[]).into_bytes();
            input.extend_from_slice(b"---\n");
            input.extend_from_slice(stream);
            input
        }
        None => data.to_vec(),
    };
    let mut options = Options::new(Mode::Transform);
    options.config_root = empty_root();
    let outcome = run(options, &input);
    let stdout = outcome.stdout.to_text();
    if std::env::var_os("KADMIT_FUZZ_DEBUG").is_some() {
        // Reproducing an artifact: what kadmit read and what it said.
        eprintln!(
            "--- input ---\n{}\n--- exit {} ---\n{}\n--- diagnostics ---",
            String::from_utf8_lossy(&input),
            outcome.exit_code,
            stdout
        );
        for d in &outcome.diagnostics {
            eprintln!("{d:?}");
        }
    }
    if outcome.exit_code == 0 {
        let (_, problems) = decode_all(stdout.as_bytes(), &Arc::from("output"));
        if let Some(problem) = problems.first() {
            panic!(
                "kadmit cannot read its own output: {}\noutput:\n{}",
                problem.message, stdout
            );
        }
    }
});
