//! Admission-policy conformance (ValidatingAdmissionPolicy, MutatingAdmissionPolicy and
//! their bindings): every case of `../shared/peer-fixtures/admission-policies/cases.yaml`
//! is one named test (the case id), run through the kadmit binary exactly as the upstream
//! runner `run_cases.py` beside the fixtures does: one stream on stdin (policies/bindings,
//! params, namespaceObject, object), `kadmit transform --report <file>` with `--operation`,
//! `-n`, `--user`, `--group` from the request, and the runner's comparison rule for each
//! case kind (`build`, `check`, `norm`, `strip_ns`, `probe_object` are ports of its
//! functions of the same names). One deliberate difference: kadmit runs with `--no-defaults`
//! (the expected objects carry no native defaults), and the params and the namespaceObject
//! go in a `--config` file rather than on stdin (upstream creates them before the request:
//! they are not admitted themselves).
//!
//! Run one case: `cargo test --test admission_policies_conformance -- <id>`.
//!
//! `ALLOW_LIST` names the cases kadmit deliberately does not pass, each with its reason: such
//! a case's test (named `<id> [allow-listed]`) passes while it fails, and fails once the case
//! passes, so the list cannot keep stale entries.

mod common;

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::{json, Map, Value};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// The fixture directory under `../shared/peer-fixtures`.
const PEER: &str = "admission-policies";

/// How many cases cases.yaml holds (its README's count).
const CASE_COUNT: usize = 211;

/// Cases kadmit is known not to pass: `(case id, one-line reason)`.
const ALLOW_LIST: &[(&str, &str)] = &[
    (
        "matching_test-1",
        "the runner's probe ValidatingAdmissionPolicy takes the case's matchResources as matchConstraints, which a server refuses on create (no resourceRules, or a selector value that is not a label value); the matcher itself passes this case in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-19",
        "the runner's probe ValidatingAdmissionPolicy takes the case's matchResources as matchConstraints, which a server refuses on create (no resourceRules, or a selector value that is not a label value); the matcher itself passes this case in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-20",
        "the runner's probe ValidatingAdmissionPolicy takes the case's matchResources as matchConstraints, which a server refuses on create (no resourceRules, or a selector value that is not a label value); the matcher itself passes this case in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-21",
        "the runner's probe ValidatingAdmissionPolicy takes the case's matchResources as matchConstraints, which a server refuses on create (no resourceRules, or a selector value that is not a label value); the matcher itself passes this case in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-22",
        "the runner's probe ValidatingAdmissionPolicy takes the case's matchResources as matchConstraints, which a server refuses on create (no resourceRules, or a selector value that is not a label value); the matcher itself passes this case in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-23",
        "the runner's probe ValidatingAdmissionPolicy takes the case's matchResources as matchConstraints, which a server refuses on create (no resourceRules, or a selector value that is not a label value); the matcher itself passes this case in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-24",
        "the runner's probe ValidatingAdmissionPolicy takes the case's matchResources as matchConstraints, which a server refuses on create (no resourceRules, or a selector value that is not a label value); the matcher itself passes this case in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-6",
        "the upstream test's mapper makes extensions/v1beta1 and apps/v1beta1 deployments equivalent to apps/v1, which no 1.30+ server serves; the matcher passes this case with that mapper in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-7",
        "the upstream test's mapper makes extensions/v1beta1 and apps/v1beta1 deployments equivalent to apps/v1, which no 1.30+ server serves; the matcher passes this case with that mapper in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-13",
        "the upstream test's mapper makes extensions/v1beta1 and apps/v1beta1 deployments equivalent to apps/v1, which no 1.30+ server serves; the matcher passes this case with that mapper in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-8",
        "a subresource request (kadmit admits whole objects and has no --subresource); the matcher passes this case in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-9",
        "a subresource request (kadmit admits whole objects and has no --subresource); the matcher passes this case in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-10",
        "a subresource request (kadmit admits whole objects and has no --subresource); the matcher passes this case in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-11",
        "a subresource request (kadmit admits whole objects and has no --subresource); the matcher passes this case in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-12",
        "a subresource request (kadmit admits whole objects and has no --subresource); the matcher passes this case in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-15",
        "a subresource request (kadmit admits whole objects and has no --subresource); the matcher passes this case in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-16",
        "a subresource request (kadmit admits whole objects and has no --subresource); the matcher passes this case in crates/policy/tests/matching_cases.rs",
    ),
    (
        "matching_test-18",
        "a Scale request (the scale subresource's kind); kadmit admits whole objects, and autoscaling/v1 Scale is no stored kind; the matcher passes this case in crates/policy/tests/matching_cases.rs",
    ),
    (
        "validatingadmissionpolicy_test-18",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-19",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-20",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-21",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-22",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-23",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-24",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-25",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-26",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-27",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-28",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-29",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-30",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-31",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-32",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-33",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-34",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-35",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-51",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-52",
        "the binding omits paramRef.parameterNotFoundAction: upstream's test used v1alpha1, where SetDefaults_ParamRef defaults it to Deny; the fixture transcribes it as v1, where no default exists and validation.go requires it (types.go: Required), so a v1 server refuses the binding on create as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-17",
        "expressionIndex is 1 upstream only because its harness prepends a marker validation (the case's own derived note); the policy as transcribed gives 0, as kadmit does",
    ),
    (
        "validatingadmissionpolicy_test-45",
        "needs the CRD pandas.awesome.bears.com with two served versions (the case's note), which the case does not give; with it (--crd) kadmit maps Panda v2 to pandas v1 (crates/policy/tests/vap_cases.rs passes it)",
    ),
    (
        "validatingadmissionpolicy_test-tc2",
        "type-checking warnings against the matched kinds' schemas (status.typeChecking) are not computed: kadmit's checker has no schema for object (docs/admission-policies.md, differences)",
    ),
    (
        "validation_test-17",
        "every expected error is reported, but in kubectl's envelope (one `* field: message` line each), not ErrorList.ToAggregate's `, ` join that the case quotes",
    ),
    (
        "json_patch_test-25",
        "kadmit refuses the patched object for the same unknown field, with the same `strict decoding error: unknown field \"spec.template.spec.containers[1].ports[0].containerPortZ\"`, but when it decodes the object again after the mutating phase (the 400 of built-in decoding) rather than inside the MAP dispatcher (the server's `Internal error occurred: ` wording)",
    ),
    (
        "smd_test-4",
        "an UPDATE whose oldObject differs from the object: kadmit has no previous state yet (oldObject is the object itself, docs/admission-policies.md); crates/policy/tests/map_cases.rs passes it",
    ),
    (
        "mutatingadmissionpolicy_test-12",
        "upstream a status-subresource UPDATE of a Namespace whose expected labels, finalizers and phase come from the Namespace strategy; the case's request has no subresource (crates/policy/tests/map_cases.rs allow-lists it too)",
    ),
    (
        "condition_test-11",
        "paramKind example.com/v1 ParamCRD needs its CRD, which the case does not give: kadmit reports the binding's configuration error (paramKind kind ... not known) as the server would",
    ),
    (
        "condition_test-13",
        "paramKind example.com/v1 ParamCRD needs its CRD, which the case does not give: kadmit reports the binding's configuration error (paramKind kind ... not known) as the server would",
    ),
    (
        "condition_test-16",
        "namespaceObject.metadata.managedFields and .ownerReferences do not compile (namespaceObject is typed): wrapped in policies by the runner, they are refused on create (exit 2) as the server refuses them; upstream compiles the expressions alone (crates/policy/tests/vap_cases.rs passes it)",
    ),
    (
        "condition_test-12",
        "the expression does not compile: wrapped in a policy by the runner, it is refused on create (exit 2) as the server refuses it; upstream compiles the expression alone",
    ),
];

/// The most of kadmit's stderr a failure message shows.
const STDERR_SHOWN: usize = 2048;

const POLICY_KINDS: &[&str] = &[
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
];

/// Cases whose check ran, and of those the ones that passed (allow-list aside).
static RAN: AtomicUsize = AtomicUsize::new(0);
static PASSED: AtomicUsize = AtomicUsize::new(0);

fn main() {
    let args = Arguments::from_args();
    if !common::peer_fixtures_present(PEER) {
        return;
    }
    // PyYAML data, read with a YAML 1.2 reader that resolves its scalars as PyYAML does
    // (kadmit's own reader, as kubectl's, reads the plain label key `y` as `true`).
    let path = common::peer_fixtures(PEER).join("cases.yaml");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let doc: Value = serde_yaml::from_str(&text).expect("cases.yaml parses");
    // The runner accepts a bare list of cases as well as a `cases:` key.
    let cases: Vec<Value> = match &doc {
        Value::Array(list) => list.clone(),
        other => other["cases"]
            .as_array()
            .cloned()
            .expect("cases.yaml has no cases: list"),
    };

    let mut trials: Vec<Trial> = cases.iter().map(trial).collect();
    trials.push(case_count(cases.len()));
    trials.push(allow_list_names_real_cases(&cases));

    let conclusion = libtest_mimic::run(&args, trials);
    let ran = RAN.load(Ordering::SeqCst);
    if ran > 0 {
        println!("{PEER}: {}/{ran} cases pass", PASSED.load(Ordering::SeqCst));
    }
    conclusion.exit();
}

/// The test of one case, named by its id (`<id> [allow-listed]` when listed).
fn trial(case: &Value) -> Trial {
    let id = case["id"].as_str().unwrap_or("?").to_owned();
    let case = case.clone();
    match ALLOW_LIST.iter().find(|(listed, _)| *listed == id) {
        None => Trial::test(id, move || run_case(&case).map_err(Failed::from)),
        Some((_, reason)) => {
            let reason = *reason;
            Trial::test(format!("{id} [allow-listed]"), move || {
                match run_case(&case) {
                    // Its name says it is allow-listed; the reason is in ALLOW_LIST.
                    Err(_) => Ok(()),
                    Ok(()) => Err(Failed::from(format!(
                        "{id} is in ALLOW_LIST ({reason}) but now passes: remove it from the allow-list"
                    ))),
                }
            })
        }
    }
}

fn case_count(count: usize) -> Trial {
    Trial::test("harness::case_count", move || {
        if count == CASE_COUNT {
            Ok(())
        } else {
            Err(format!("cases.yaml holds {count} cases, expected {CASE_COUNT}").into())
        }
    })
}

fn allow_list_names_real_cases(cases: &[Value]) -> Trial {
    let stale: Vec<&str> = ALLOW_LIST
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| !cases.iter().any(|c| c["id"].as_str() == Some(id)))
        .collect();
    let message = format!("ALLOW_LIST names ids that are not cases: {stale:?}");
    let stale = stale.is_empty();
    Trial::test("harness::allow_list_names_real_cases", move || {
        if stale {
            Ok(())
        } else {
            Err(message.into())
        }
    })
}

/// `kadmit transform --help`, read once: which optional flags this kadmit has.
fn help_text() -> &'static str {
    static HELP: OnceLock<String> = OnceLock::new();
    HELP.get_or_init(|| {
        let mut cmd = Command::new(common::kadmit_bin());
        cmd.args(["transform", "--help"]);
        common::run(&mut cmd, None).stdout
    })
}

/// Runs one case through kadmit; `Err` says why it does not pass (the runner's reason),
/// with kadmit's exit code and stderr.
fn run_case(case: &Value) -> Result<(), String> {
    RAN.fetch_add(1, Ordering::SeqCst);
    let help = help_text();
    let (docs, mut args, why) = build(case, help)?;
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a temporary directory: {e}"))?;
    if !case["oldObject"].is_null() && help.contains("--old-object") {
        let path = dir.path().join("old.json");
        std::fs::write(&path, case["oldObject"].to_string())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        args.push("--old-object".into());
        args.push(path.display().to_string());
    }
    // The params are configuration (`--config`), not part of the stream: upstream creates
    // them before the request, so they are not admitted themselves (the runner puts them on
    // stdin, where kadmit would admit them too, and a catch-all policy would judge them).
    let mut params = items(get(case, "params")).to_vec();
    if truthy(get(case, "namespaceObject")) {
        params.push(case["namespaceObject"].clone());
    }
    if !params.is_empty() {
        let path = dir.path().join("params.yaml");
        let text: String = params.iter().map(|d| format!("---\n{d}\n")).collect();
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        args.push("--config".into());
        args.push(path.display().to_string());
    }
    let report_path = dir.path().join("report.json");
    // Each document is JSON (exact, whatever its strings hold) in a YAML stream: a stream
    // that starts with `{` is read as a JSON stream, which has no `---`, so every document,
    // the first one too, opens with `---`.
    let stream: String = docs.iter().map(|d| format!("---\n{d}\n")).collect();

    let mut cmd = Command::new(common::kadmit_bin());
    // `--no-defaults`: the fixtures' expected objects are the upstream patchers' outputs and
    // the objects as sent, without the native defaults the server would add on create (the
    // fixture README, "No native defaulting"); kadmit still decodes and validates them.
    cmd.arg("transform")
        .arg("--report")
        .arg(&report_path)
        .arg("--no-defaults")
        .args(&args)
        .env_remove("KUSTOMIZE_PLUGIN_CONFIG_ROOT")
        .env_remove("KADMIT_PLUGIN_PATH")
        .env("XDG_CONFIG_HOME", "/nonexistent-kadmit-test");
    let ran = common::run(&mut cmd, Some(stream.as_bytes()));
    let rc = exit_code(&ran.status);
    let report = std::fs::read(&report_path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();

    let fail = why.or_else(|| check(case, rc, &ran.stdout, &ran.stderr, &report));
    match fail {
        None => {
            PASSED.fetch_add(1, Ordering::SeqCst);
            Ok(())
        }
        Some(reason) => Err(format!(
            "{reason}\ncommand: kadmit transform --report <tmp> {}\nkadmit exit code: {rc}\n--- kadmit stderr{} ---\n{}",
            args.join(" "),
            if ran.stderr.len() > STDERR_SHOWN {
                " (truncated)"
            } else {
                ""
            },
            truncate(&ran.stderr, STDERR_SHOWN)
        )),
    }
}

/// The exit code as Python's subprocess reports it (minus the signal for a killed process).
fn exit_code(status: &std::process::ExitStatus) -> i32 {
    if let Some(code) = status.code() {
        return code;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return -signal;
        }
    }
    -1
}

fn truncate(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

// ---------------------------------------------------------------------------------------
// Ports of run_cases.py
// ---------------------------------------------------------------------------------------

/// Python truthiness of a YAML value.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// `d.get(k) or <empty>` for a key of a mapping (anything else has no keys).
fn get<'a>(v: &'a Value, key: &str) -> &'a Value {
    static NULL: Value = Value::Null;
    v.as_object().and_then(|o| o.get(key)).unwrap_or(&NULL)
}

/// A scalar as the text the runner would use (strings as themselves).
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Python's `repr` of a scalar, for reason texts.
fn repr(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::String(s) => str_repr(s),
        other => other.to_string(),
    }
}

/// Python's `repr` of a string: single quotes unless it holds one and no double quote.
fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::from(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// A list value's items (`x or []`).
fn items(v: &Value) -> &[Value] {
    v.as_array().map(Vec::as_slice).unwrap_or(&[])
}

/// `norm`: null values and empty maps/lists dropped from mappings, recursively.
fn norm(x: &Value) -> Value {
    match x {
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                let v = norm(v);
                let empty = match &v {
                    Value::Null => true,
                    Value::Object(m) => m.is_empty(),
                    Value::Array(a) => a.is_empty(),
                    _ => false,
                };
                if !empty {
                    out.insert(k.clone(), v);
                }
            }
            Value::Object(out)
        }
        Value::Array(list) => Value::Array(list.iter().map(norm).collect()),
        other => other.clone(),
    }
}

/// `key`: apiVersion, kind and name (empty when absent) of a document.
fn key(o: &Value) -> (Value, Value, Value) {
    let m = get(o, "metadata");
    let name = get(m, "name");
    (
        get(o, "apiVersion").clone(),
        get(o, "kind").clone(),
        if truthy(name) {
            name.clone()
        } else {
            Value::String(String::new())
        },
    )
}

fn key_repr(k: &(Value, Value, Value)) -> String {
    format!("({}, {}, {})", repr(&k.0), repr(&k.1), repr(&k.2))
}

/// `strip_ns`: kadmit may fill metadata.namespace from -n; ignore it when the expected
/// object names none.
fn strip_ns(got: &Value, want: &Value) -> Value {
    let mut got = got.clone();
    if !truthy(get(get(want, "metadata"), "namespace")) {
        if let Some(meta) = got.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("namespace");
        }
    }
    got
}

/// Python `==` on parsed YAML: maps regardless of order, an int equal to the same float,
/// a bool equal to 0/1.
fn py_eq(a: &Value, b: &Value) -> bool {
    fn number(v: &Value) -> Option<f64> {
        match v {
            Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            Value::Number(n) => n.as_f64(),
            _ => None,
        }
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| py_eq(v, w))
        }
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            x.as_f64() == y.as_f64()
        }
        (Value::Number(_), Value::Number(_)) | (Value::Bool(_), Value::Bool(_)) => a == b,
        (Value::Bool(_), Value::Number(_)) | (Value::Number(_), Value::Bool(_)) => {
            number(a) == number(b)
        }
        _ => a == b,
    }
}

/// `json.dumps(x, sort_keys=True)`.
fn sorted_json(x: &Value) -> String {
    fn sort(x: &Value) -> Value {
        match x {
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k.clone(), sort(v)))
                        .collect(),
                )
            }
            Value::Array(list) => Value::Array(list.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(x).to_string()
}

/// `json.dumps(s)[1:-1]` for a string: the JSON escape of its text, non-ASCII as `\uXXXX`.
fn json_escaped(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Python's `str.splitlines` (its line boundaries, not only `\n`).
fn splitlines(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c| {
        matches!(
            c,
            '\n' | '\r'
                | '\u{b}'
                | '\u{c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        )
    })
}

/// `probe_object`: the object a match case's request names.
fn probe_object(req: &Value) -> Value {
    let r = get(req, "resource");
    let k = get(req, "kind");
    let group = r.get("group").cloned().unwrap_or(json!(""));
    let version = r.get("version").cloned().unwrap_or(json!("v1"));
    let kind = if truthy(get(k, "kind")) {
        get(k, "kind").clone()
    } else {
        let resource = r
            .get("resource")
            .map(text_of)
            .unwrap_or_else(|| "things".into());
        Value::String(capitalize(resource.trim_end_matches('s')))
    };
    let api = if truthy(&group) {
        Value::String(format!("{}/{}", text_of(&group), text_of(&version)))
    } else {
        version
    };
    let name = get(req, "name");
    let mut meta = Map::new();
    meta.insert(
        "name".into(),
        if truthy(name) {
            name.clone()
        } else {
            json!("probe")
        },
    );
    if truthy(get(req, "namespace")) {
        meta.insert("namespace".into(), get(req, "namespace").clone());
    }
    json!({"apiVersion": api, "kind": kind, "metadata": meta})
}

/// Python's `str.capitalize`: the first character upper case, the rest lower case.
fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        None => String::new(),
        Some(first) => first
            .to_uppercase()
            .chain(chars.flat_map(char::to_lowercase))
            .collect(),
    }
}

/// `case[name]`, which the runner requires.
fn required<'a>(case: &'a Value, name: &str) -> Result<&'a Value, String> {
    case.get(name)
        .ok_or_else(|| format!("the case has no {name}: the runner cannot build it"))
}

/// The object the stream ends with: `object`, or `oldObject` when there is none.
fn case_object(case: &Value) -> Result<Value, String> {
    if !get(case, "object").is_null() {
        Ok(case["object"].clone())
    } else {
        required(case, "oldObject").cloned()
    }
}

/// `build`: the stream's documents, kadmit's arguments, and a reason the case cannot pass
/// with this kadmit (a flag it lacks).
/// What `build` makes of a case: the stream's documents, kadmit's arguments, and the reason
/// the case cannot pass when there is one.
type Built = (Vec<Value>, Vec<String>, Option<String>);

fn build(case: &Value, help: &str) -> Result<Built, String> {
    let mut docs: Vec<Value> = Vec::new();
    let mut args: Vec<String> = Vec::new();
    let mut why = None;
    let kind = text_of(required(case, "kind")?);
    let req = get(case, "request");
    match kind.as_str() {
        "match" => {
            docs.push(json!({
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicy",
                "metadata": {"name": "match-probe"},
                "spec": {
                    "failurePolicy": "Fail",
                    "matchConstraints": required(case, "matchResources")?,
                    "validations": [{"expression": "false", "message": "match-probe matched"}],
                },
            }));
            docs.push(json!({
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicyBinding",
                "metadata": {"name": "match-probe-binding"},
                "spec": {"policyName": "match-probe", "validationActions": ["Deny"]},
            }));
            let mut obj = probe_object(req);
            if truthy(get(req, "object")) {
                obj = req["object"].clone();
                obj["metadata"] = probe_object(req)["metadata"].clone();
            }
            docs.push(obj);
            // The probe object is a bare `{apiVersion, kind, metadata}`: built-in admission
            // (which refuses a Deployment without a spec) is not what these cases test.
            args.push("--no-builtins".into());
            if truthy(get(req, "subResource")) {
                if help.contains("--subresource") {
                    args.push("--subresource".into());
                    args.push(text_of(&req["subResource"]));
                } else {
                    why = Some("needs a --subresource flag".to_owned());
                }
            }
        }
        "condition" => {
            // The upstream unit tests' objects are bare (a Pod without containers): built-in
            // admission would refuse them before any policy runs, and is not what they test.
            args.push("--no-builtins".into());
            for (i, ex) in items(required(case, "expressions")?).iter().enumerate() {
                let mut spec = json!({
                    "failurePolicy": "Fail",
                    "matchConstraints": {"resourceRules": [{
                        "apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"],
                    }]},
                    "validations": [{"expression": required(ex, "expression")?}],
                });
                if truthy(get(case, "paramKind")) {
                    spec["paramKind"] = case["paramKind"].clone();
                }
                docs.push(json!({
                    "apiVersion": "admissionregistration.k8s.io/v1",
                    "kind": "ValidatingAdmissionPolicy",
                    "metadata": {"name": format!("cond-{i}")},
                    "spec": spec,
                }));
                let mut bspec =
                    json!({"policyName": format!("cond-{i}"), "validationActions": ["Warn"]});
                if truthy(get(case, "paramRef")) {
                    bspec["paramRef"] = case["paramRef"].clone();
                }
                docs.push(json!({
                    "apiVersion": "admissionregistration.k8s.io/v1",
                    "kind": "ValidatingAdmissionPolicyBinding",
                    "metadata": {"name": format!("cond-{i}-binding")},
                    "spec": bspec,
                }));
            }
            docs.push(case_object(case)?);
        }
        "policy-validation" => {
            docs.extend(items(required(case, "policies")?).iter().cloned());
            docs.push(json!({
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "probe", "namespace": "default"},
            }));
        }
        _ => {
            docs.extend(items(get(case, "policies")).iter().cloned());
            docs.push(case_object(case)?);
            // The patcher unit tests' Deployments are bare (no selector, no containers): the
            // server would refuse them on create, which is not what the cases that expect an
            // admitted object test. A case that expects a denial keeps built-in admission
            // (json_patch_test-25: the mutated object's unknown field is refused when it is
            // decoded again); its expected message must still be there.
            let id = text_of(&case["id"]);
            let unit_test = id.starts_with("json_patch_test-") || id.starts_with("smd_test-");
            if unit_test && case["expect"]["allowed"] != json!(false) {
                args.push("--no-builtins".into());
            }
        }
    }
    let op = get(req, "operation");
    args.push("--operation".into());
    args.push(if truthy(op) {
        text_of(op)
    } else {
        "CREATE".into()
    });
    if truthy(get(req, "namespace")) {
        args.push("-n".into());
        args.push(text_of(&req["namespace"]));
    }
    let ui = get(req, "userInfo");
    if truthy(get(ui, "username")) {
        args.push("--user".into());
        args.push(text_of(&ui["username"]));
    }
    for g in items(get(ui, "groups")) {
        args.push("--group".into());
        args.push(text_of(g));
    }
    Ok((docs, args, why))
}

/// kadmit's stdout as documents (mappings only); none when it does not parse.
fn output_documents(out: &str) -> Vec<Value> {
    let (docs, problems) =
        kadmit::testing::core::decode::decode_all(out.as_bytes(), &Arc::from("<kadmit stdout>"));
    if !problems.is_empty() {
        return Vec::new();
    }
    docs.into_iter()
        .map(|d| d.value)
        .filter(Value::is_object)
        .collect()
}

/// `check`: `None` when kadmit's answer is the case's expectation, else why not.
fn check(case: &Value, rc: i32, out: &str, err: &str, report: &str) -> Option<String> {
    let e = get(case, "expect");
    let kind = text_of(get(case, "kind"));
    let text = format!("{err}\n{report}");
    let outs = output_documents(out);
    if outs.iter().any(|d| {
        d["kind"]
            .as_str()
            .is_some_and(|k| POLICY_KINDS.contains(&k))
    }) {
        return Some(
            "kadmit passed the policy/binding through to stdout: not recognised as configuration"
                .into(),
        );
    }
    let has = |v: &Value| text.contains(&text_of(v));
    match kind.as_str() {
        "policy-validation" => {
            if truthy(get(e, "accepted")) {
                if rc != 0 {
                    return Some(format!("expected exit 0 (policy accepted), got {rc}"));
                }
                for w in items(get(e, "typeCheckingWarnings")) {
                    let wanted = get(w, "warning_contains");
                    if !has(wanted) {
                        return Some(format!(
                            "missing type-checking warning: {}",
                            text_of(wanted)
                        ));
                    }
                }
                return None;
            }
            if rc != 2 {
                return Some(format!("expected exit 2 (policy refused), got {rc}"));
            }
            let wanted = get(e, "error_contains");
            if truthy(wanted) && !has(wanted) {
                return Some(format!("stderr lacks: {}", text_of(wanted)));
            }
            None
        }
        "condition" => {
            if rc != 0 {
                return Some(format!(
                    "expected exit 0 (all validations bound with Warn), got {rc}"
                ));
            }
            for (i, ex) in items(get(case, "expressions")).iter().enumerate() {
                let w = format!(
                    "Validation failed for ValidatingAdmissionPolicy 'cond-{i}' with binding 'cond-{i}-binding': "
                );
                let expression = text_of(get(ex, "expression"));
                let x = get(ex, "expect");
                let result = get(x, "result");
                if *result == Value::Bool(true) && text.contains(&w) {
                    return Some(format!("expression {i} should be true: {expression}"));
                }
                if *result == Value::Bool(false)
                    && !text.contains(&format!("{w}failed expression: {expression}"))
                {
                    return Some(format!(
                        "expression {i} should be false (warning expected): {expression}"
                    ));
                }
                let wanted = get(x, "error_contains");
                if truthy(wanted) {
                    let wanted = text_of(wanted);
                    if !splitlines(&text).any(|line| line.contains(&w) && line.contains(&wanted)) {
                        return Some(format!(
                            "expression {i} should fail with {}",
                            str_repr(&wanted)
                        ));
                    }
                }
            }
            None
        }
        "match" => {
            let wanted = get(e, "error_contains");
            if truthy(wanted) {
                if rc != 1 || !has(wanted) {
                    return Some(format!("expected exit 1 with {}, got {rc}", repr(wanted)));
                }
                return None;
            }
            if truthy(get(e, "matches")) {
                if rc != 1 || !text.contains("match-probe matched") {
                    return Some(format!(
                        "expected the probe policy to match (exit 1 'match-probe matched'), got {rc}"
                    ));
                }
                return None;
            }
            if rc == 0 {
                None
            } else {
                Some(format!("expected no match (exit 0), got {rc}"))
            }
        }
        _ => {
            if *get(e, "allowed") == Value::Bool(false) {
                if rc != 1 {
                    return Some(format!("expected exit 1 (denied), got {rc}"));
                }
                for k in ["message_contains", "message_prefix"] {
                    let wanted = get(e, k);
                    if truthy(wanted) && !has(wanted) {
                        return Some(format!("stderr lacks {k}: {}", text_of(wanted)));
                    }
                }
            } else {
                if rc != 0 {
                    return Some(format!("expected exit 0, got {rc}"));
                }
                let want = match e.get("object") {
                    Some(object) => object,
                    None => get(case, "object"),
                };
                if !want.is_object() {
                    return Some("the case names no expected object".into());
                }
                let wanted_key = key(want);
                let Some(got) = outs.iter().find(|d| key(d) == wanted_key) else {
                    return Some(format!("output has no {}", key_repr(&wanted_key)));
                };
                if !py_eq(&norm(&strip_ns(got, want)), &norm(want)) {
                    return Some(format!(
                        "object differs:\n  want {}\n  got  {}",
                        sorted_json(&norm(want)),
                        sorted_json(&norm(got))
                    ));
                }
            }
            for w in items(get(e, "warnings")) {
                if !has(w) {
                    return Some(format!("missing warning: {}", text_of(w)));
                }
            }
            if let Some(annotations) = get(e, "auditAnnotations").as_object() {
                for (k, v) in annotations {
                    let value = text_of(v);
                    if !text.contains(k.as_str())
                        || (!text.contains(&value) && !text.contains(&json_escaped(&value)))
                    {
                        return Some(format!("missing audit annotation {k}={value}"));
                    }
                }
            }
            None
        }
    }
}
