//! `kadmit test` (docs/cli.md "kadmit test"): declarative test suites for policy authors.
//! A `kadmit.dev/v1alpha1` `Test` names policies, resources and, per resource, what
//! admission should make of it. Each Test runs its resources once through [`super::run`]
//! with the options its spec gives, then checks every case against the outcome: the
//! diagnostics that name the resource and, with `object`, the resource as admitted.
//!
//! A Test document is decoded strictly against its CRD (`crds/kadmit/kadmit.dev_tests.yaml`,
//! `strict.rs`), as every other `kadmit.dev` kind is.

use super::{report, strict, Mode, Options, Outcome};
use crate::core::confine::walk_files;
use crate::core::decode::{decode_all, Document};
use crate::core::diagnostic::{Diagnostic, Severity};
use crate::core::pipeline::Operation;
use crate::core::resource::Resource;
use kadmit_schema::admission::FieldValidation;
use serde::Deserialize;
use serde_json::Value;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The apiVersion and kind of a Test document.
const API_VERSION: &str = "kadmit.dev/v1alpha1";
const KIND: &str = "Test";

/// What every Test found under the paths came to.
#[derive(Debug, Default)]
pub struct Verdict {
    /// Every case of every valid Test, in file and case order.
    pub cases: Vec<CaseResult>,
    /// Why a Test is invalid or could not run (an error each); any makes the exit code 2.
    pub problems: Vec<String>,
}

/// One case checked.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// The Test's `metadata.name`.
    pub test: String,
    /// The Test's file.
    pub file: String,
    /// The resource's name as the case gives it.
    pub resource: String,
    /// `admitted`, `rejected` or `warned`.
    pub expect: &'static str,
    /// The expectation in full: `rejected by "require-owner"`.
    pub expectation: String,
    /// Why the case failed; `None` when it passed.
    pub failure: Option<String>,
    /// The diagnostics that named the resource (all of them, shown with a failure).
    pub seen: Vec<String>,
}

impl Verdict {
    pub fn passed(&self) -> usize {
        self.cases.iter().filter(|c| c.failure.is_none()).count()
    }

    pub fn failed(&self) -> usize {
        self.cases.len() - self.passed()
    }

    /// 0 every case passed, 1 a case failed, 2 a Test is invalid or could not run.
    pub fn exit_code(&self) -> i32 {
        if !self.problems.is_empty() {
            2
        } else if self.failed() > 0 {
            1
        } else {
            0
        }
    }

    /// One line per case (with the diagnostics seen under a failing one), then the summary.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for case in &self.cases {
            let name = format!("{}/{}", case.test, case.resource);
            match &case.failure {
                None => {
                    let _ = writeln!(out, "PASS {name}: {}", case.expectation);
                }
                Some(why) => {
                    let _ = writeln!(out, "FAIL {name}: {why}");
                    for line in &case.seen {
                        let _ = writeln!(out, "    {line}");
                    }
                }
            }
        }
        let _ = writeln!(out, "{} passed, {} failed", self.passed(), self.failed());
        out
    }

    /// JUnit XML: a `<testsuite>` per Test (its name), a `<testcase>` per case
    /// (`classname` the Test, `name` the resource and expectation), a failing case's reason
    /// as its `<failure>`, and an invalid Test as a test case with an `<error>`.
    pub fn junit(&self) -> String {
        let mut suites: Vec<(String, String, Vec<&CaseResult>)> = Vec::new();
        for case in &self.cases {
            match suites.last_mut() {
                Some((test, file, cases)) if *test == case.test && *file == case.file => {
                    cases.push(case)
                }
                _ => suites.push((case.test.clone(), case.file.clone(), vec![case])),
            }
        }
        let tests = self.cases.len() + self.problems.len();
        let failures = self.failed();
        let errors = self.problems.len();
        let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            xml,
            "<testsuites name=\"kadmit test\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\">"
        );
        for (test, file, cases) in &suites {
            let failed = cases.iter().filter(|c| c.failure.is_some()).count();
            let _ = writeln!(
                xml,
                "  <testsuite name=\"{}\" file=\"{}\" tests=\"{}\" failures=\"{failed}\" errors=\"0\" skipped=\"0\">",
                report::xml_attribute(test),
                report::xml_attribute(file),
                cases.len()
            );
            for case in cases {
                let _ = write!(
                    xml,
                    "    <testcase classname=\"{}\" name=\"{}: {}\" file=\"{}\"",
                    report::xml_attribute(test),
                    report::xml_attribute(&case.resource),
                    report::xml_attribute(&case.expectation),
                    report::xml_attribute(file)
                );
                match &case.failure {
                    None => xml.push_str("/>\n"),
                    Some(why) => {
                        let _ = writeln!(
                            xml,
                            ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>",
                            report::xml_attribute(why),
                            case.expect,
                            report::xml_text(&case.seen.join("\n"))
                        );
                    }
                }
            }
            xml.push_str("  </testsuite>\n");
        }
        if !self.problems.is_empty() {
            let _ = writeln!(
                xml,
                "  <testsuite name=\"invalid\" tests=\"{errors}\" failures=\"0\" errors=\"{errors}\" skipped=\"0\">"
            );
            for (i, problem) in self.problems.iter().enumerate() {
                let _ = writeln!(
                    xml,
                    "    <testcase classname=\"kadmit test\" name=\"problem {}\">\n      <error message=\"{}\" type=\"invalid\"/>\n    </testcase>",
                    i + 1,
                    report::xml_attribute(problem)
                );
            }
            xml.push_str("  </testsuite>\n");
        }
        xml.push_str("</testsuites>\n");
        xml
    }
}

/// A Test's `spec`, as its CRD describes it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Spec {
    #[serde(default)]
    policies: Vec<String>,
    #[serde(default)]
    crds: Vec<String>,
    #[serde(default)]
    options: RunOptions,
    resources: Vec<String>,
    /// The previous state (`--old`): each resource with an old object is an UPDATE.
    #[serde(default)]
    old: Vec<String>,
    cases: Vec<Case>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunOptions {
    operation: Option<String>,
    namespace: Option<String>,
    kubernetes_version: Option<String>,
    user: Option<String>,
    #[serde(default)]
    groups: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Case {
    resource: CaseResource,
    expect: Expect,
    rule: Option<String>,
    message_contains: Option<String>,
    object: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CaseResource {
    api_version: Option<String>,
    kind: String,
    name: String,
    namespace: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Expect {
    Admitted,
    Rejected,
    Warned,
}

impl Expect {
    fn name(self) -> &'static str {
        match self {
            Expect::Admitted => "admitted",
            Expect::Rejected => "rejected",
            Expect::Warned => "warned",
        }
    }
}

/// Runs every Test in `paths` (files, or directories walked for `*.yaml` and `*.yml`).
pub fn test(paths: &[PathBuf]) -> Verdict {
    let mut verdict = Verdict::default();
    let mut found = 0;
    for path in paths {
        if path.is_dir() {
            let walk = walk_files(path, path, "directory", true, |p| {
                p.extension().is_some_and(|e| e == "yaml" || e == "yml")
            });
            verdict.problems.extend(walk.problems);
            for file in walk.files {
                found += test_file(&file, false, &mut verdict);
            }
        } else if path.is_file() {
            found += test_file(path, true, &mut verdict);
        } else {
            verdict
                .problems
                .push(format!("{}: no such file or directory", path.display()));
        }
    }
    if found == 0 && verdict.problems.is_empty() {
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        verdict.problems.push(format!(
            "no {API_VERSION} Test found in {}",
            names.join(", ")
        ));
    }
    verdict
}

/// Runs the Tests of one file; how many there were. `named`: the user named the file, so
/// one without a Test is a problem (a file found by walking a directory is just not one).
fn test_file(path: &Path, named: bool, verdict: &mut Verdict) -> usize {
    let source = path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            verdict.problems.push(format!("{source}: cannot read: {e}"));
            return 0;
        }
    };
    let (documents, problems) = decode_all(&bytes, &Arc::from(source.as_str()));
    let tests: Vec<Document> = documents.into_iter().filter(is_test).collect();
    if tests.is_empty() {
        if named {
            verdict.problems.extend(problems.iter().map(problem_of));
            verdict
                .problems
                .push(format!("{source}: holds no {API_VERSION} Test"));
        }
        return 0;
    }
    verdict.problems.extend(problems.iter().map(problem_of));
    let dir = path.parent().unwrap_or(Path::new("."));
    for document in &tests {
        match Prepared::of(document, dir, &source) {
            Ok(prepared) => prepared.check(verdict),
            Err(problems) => verdict.problems.extend(problems),
        }
    }
    tests.len()
}

/// An error diagnostic as a problem line, without its `error: ` (the edge writes that).
fn problem_of(d: &Diagnostic) -> String {
    let text = d.to_string();
    match text.strip_prefix(&format!("{}: ", d.severity.as_str())) {
        Some(rest) => rest.to_owned(),
        None => text,
    }
}

fn is_test(document: &Document) -> bool {
    document.value["apiVersion"] == API_VERSION && document.value["kind"] == KIND
}

/// A valid Test, ready to run: its options, stream and cases with their expected objects.
struct Prepared {
    name: String,
    file: String,
    options: Options,
    cases: Vec<(Case, Option<(String, Value)>)>,
}

impl Prepared {
    /// Decodes a Test strictly and reads what it names; every problem found, when invalid.
    fn of(document: &Document, dir: &Path, file: &str) -> Result<Prepared, Vec<String>> {
        let mut resource = Resource::new(document.value.clone(), document.origin.clone())
            .map_err(|e| vec![format!("{}: {e}", document.origin)])?;
        let unknown = strict::check_document(&mut resource, FieldValidation::Strict);
        if !unknown.is_empty() {
            return Err(unknown.iter().map(problem_of).collect());
        }
        let name = resource.id.name.clone();
        let at = |what: String| format!("Test {name} [{}]: {what}", document.origin);
        let spec: Spec = serde_json::from_value(resource.value["spec"].clone())
            .map_err(|e| vec![at(format!("spec: {e}"))])?;
        let mut problems = Vec::new();
        let mut options = Options::new(Mode::Transform);
        options.config_root = dir.to_path_buf();
        options.keep_admitted = true;
        options.allow_empty = true;
        let existing = |field: &str, paths: &[String], problems: &mut Vec<String>| {
            let mut resolved = Vec::new();
            for (i, p) in paths.iter().enumerate() {
                let full = dir.join(p);
                if full.exists() {
                    resolved.push(full);
                } else {
                    problems.push(at(format!(
                        "spec.{field}[{i}]: {} does not exist",
                        full.display()
                    )));
                }
            }
            resolved
        };
        options.config_paths = existing("policies", &spec.policies, &mut problems);
        options.crd_paths = existing("crds", &spec.crds, &mut problems);
        let resources = existing("resources", &spec.resources, &mut problems);
        let old = existing("old", &spec.old, &mut problems);
        let o = &spec.options;
        if let Some(op) = &o.operation {
            match operation(op) {
                Some(op) => options.operation = op,
                None => problems.push(at(format!(
                    "spec.options.operation: {op:?} is not one of CREATE, UPDATE, DELETE, CONNECT"
                ))),
            }
        }
        if let Some(namespace) = &o.namespace {
            options.namespace = namespace.clone();
        }
        if let Some(version) = &o.kubernetes_version {
            match super::parse_kubernetes_version(version) {
                Ok(minor) => options.kubernetes_version = Some(minor),
                Err(e) => problems.push(at(format!("spec.options.kubernetesVersion: {e}"))),
            }
        }
        options.user = o.user.clone();
        options.groups = o.groups.clone();
        // Read as `-f` reads files (directories walked as with -R), so every diagnostic
        // names the resource file and line, not a place in a concatenated stream.
        options.inputs = resources.iter().map(|p| readable_path(p)).collect();
        options.old_inputs = old.iter().map(|p| readable_path(p)).collect();
        options.recursive = true;
        let mut cases = Vec::new();
        for (i, case) in spec.cases.into_iter().enumerate() {
            let filters = case.rule.is_some() || case.message_contains.is_some();
            if case.expect == Expect::Admitted && filters {
                problems.push(at(format!(
                    "spec.cases[{i}]: rule and messageContains apply to rejected and warned cases"
                )));
            }
            let mut expected = None;
            if let Some(object) = &case.object {
                if case.expect == Expect::Rejected {
                    problems.push(at(format!(
                        "spec.cases[{i}].object: a rejected resource is not admitted, there is no object to compare"
                    )));
                }
                match read_object(&dir.join(object)) {
                    Ok(value) => expected = Some((object.clone(), value)),
                    Err(e) => problems.push(at(format!("spec.cases[{i}].object: {e}"))),
                }
            }
            cases.push((case, expected));
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Prepared {
            name,
            file: file.to_owned(),
            options,
            cases,
        })
    }

    /// Runs the resources once and checks every case.
    fn check(self, verdict: &mut Verdict) {
        let outcome = super::run(self.options, &[]);
        if outcome.exit_code == crate::core::diagnostic::EXIT_BAD_INPUT {
            let mut problem = format!(
                "Test {} [{}]: the run failed on its input or configuration:",
                self.name, self.file
            );
            for d in outcome
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
            {
                let _ = write!(problem, "\n    {}", problem_of(d));
            }
            verdict.problems.push(problem);
            return;
        }
        for (case, expected) in &self.cases {
            let (failure, seen) = check_case(&outcome, case, expected.as_ref());
            verdict.cases.push(CaseResult {
                test: self.name.clone(),
                file: self.file.clone(),
                resource: case.resource.name.clone(),
                expect: case.expect.name(),
                expectation: expectation(case),
                failure,
                seen,
            });
        }
    }
}

fn operation(text: &str) -> Option<Operation> {
    match text {
        "CREATE" => Some(Operation::Create),
        "UPDATE" => Some(Operation::Update),
        "DELETE" => Some(Operation::Delete),
        "CONNECT" => Some(Operation::Connect),
        _ => None,
    }
}

/// `path` with each `dir/..` pair removed when that names the same file (`dir` is no
/// symbolic link), so a Test's `../app.yaml` is reported as `examples/app.yaml`, not
/// `examples/tests/../app.yaml`.
fn readable_path(path: &Path) -> PathBuf {
    let mut lexical = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir
                if matches!(
                    lexical.components().next_back(),
                    Some(std::path::Component::Normal(_))
                ) =>
            {
                lexical.pop();
            }
            other => lexical.push(other),
        }
    }
    if lexical.as_os_str().is_empty() {
        lexical.push(".");
    }
    match (lexical.canonicalize(), path.canonicalize()) {
        (Ok(a), Ok(b)) if a == b => lexical,
        _ => path.to_path_buf(),
    }
}

/// The one document of an expected-object file.
fn read_object(path: &Path) -> Result<Value, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let source = path.display().to_string();
    let (mut documents, problems) = decode_all(&bytes, &Arc::from(source.as_str()));
    if let Some(problem) = problems.first() {
        return Err(problem_of(problem));
    }
    match documents.len() {
        1 => Ok(documents.remove(0).value),
        n => Err(format!("{source} holds {n} documents, not one")),
    }
}

/// What a case expects, in words: `rejected by "require-owner"`.
fn expectation(case: &Case) -> String {
    let mut text = case.expect.name().to_owned();
    if let Some(rule) = &case.rule {
        let _ = write!(text, " by {rule:?}");
    }
    if let Some(message) = &case.message_contains {
        let _ = write!(text, " with a message containing {message:?}");
    }
    if let Some(object) = &case.object {
        let _ = write!(text, " as {object}");
    }
    text
}

/// Why the case failed, and the diagnostics that named its resource.
fn check_case(
    outcome: &Outcome,
    case: &Case,
    expected: Option<&(String, Value)>,
) -> (Option<String>, Vec<String>) {
    let r = &case.resource;
    let shown = match &r.namespace {
        Some(ns) => format!("{ns}/{}", r.name),
        None => r.name.clone(),
    };
    let subject = outcome.subjects.iter().find(|s| {
        s.id.kind == r.kind
            && s.id.name == r.name
            && r.namespace
                .as_ref()
                .is_none_or(|ns| s.namespace.as_ref() == Some(ns))
            && r.api_version
                .as_ref()
                .is_none_or(|v| s.id.api_version() == *v)
    });
    let Some(subject) = subject else {
        let held: Vec<String> = outcome
            .subjects
            .iter()
            .map(|s| match &s.namespace {
                Some(ns) => format!("{} {ns}/{}", s.id.kind, s.id.name),
                None => format!("{} {}", s.id.kind, s.id.name),
            })
            .collect();
        let failure = format!(
            "no {} {shown} in the resources (they hold: {})",
            r.api_version
                .as_ref()
                .map_or_else(|| r.kind.clone(), |v| format!("{v} {}", r.kind)),
            if held.is_empty() {
                "nothing".to_owned()
            } else {
                held.join(", ")
            }
        );
        return (Some(failure), Vec::new());
    };
    let own: Vec<&Diagnostic> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.resource.as_deref() == Some(&subject.id))
        .filter(|d| d.severity != Severity::Info)
        .collect();
    let seen: Vec<String> = own.iter().map(|d| d.to_string()).collect();
    let errors = own.iter().any(|d| d.severity == Severity::Error);
    let warnings = own.iter().any(|d| d.severity == Severity::Warning);
    let got = if errors {
        "rejected"
    } else if warnings {
        "warned"
    } else {
        "admitted"
    };
    let wanted = match case.expect {
        Expect::Admitted => None,
        Expect::Rejected => Some(Severity::Error),
        Expect::Warned => Some(Severity::Warning),
    };
    let ok = match wanted {
        None => !errors,
        Some(severity) => own.iter().any(|d| d.severity == severity && names(d, case)),
    };
    if !ok {
        let mut expectation = format!("expected {}", case.expect.name());
        if let Some(rule) = &case.rule {
            let _ = write!(expectation, " by {rule:?}");
        }
        if let Some(message) = &case.message_contains {
            let _ = write!(expectation, " with a message containing {message:?}");
        }
        let got = if wanted.is_some() && got == case.expect.name() {
            format!("{got}, but by no diagnostic that matches")
        } else {
            got.to_owned()
        };
        return (Some(format!("{expectation}, got {got}")), seen);
    }
    if let Some((file, expected)) = expected {
        let after = outcome
            .admitted
            .iter()
            .find(|a| a.id == subject.id && a.origin == subject.origin)
            .and_then(|a| a.after.as_ref());
        let failure = match after {
            None => Some(format!(
                "expected {} as {file}, got no object",
                case.expect.name()
            )),
            Some(after) if after == expected => None,
            Some(after) => {
                let mut differences = Vec::new();
                differ("", expected, after, &mut differences);
                let more = differences.len().saturating_sub(5);
                differences.truncate(5);
                let mut text = format!(
                    "expected {} as {file}, got an object that differs: {}",
                    case.expect.name(),
                    differences.join("; ")
                );
                if more > 0 {
                    let _ = write!(text, "; and {more} more");
                }
                Some(text)
            }
        };
        return (failure, seen);
    }
    (None, seen)
}

/// Whether a diagnostic names the case's rule and message, when the case gives them.
fn names(d: &Diagnostic, case: &Case) -> bool {
    let rule = case.rule.as_ref().is_none_or(|rule| {
        d.rule.as_ref().is_some_and(|r| r.contains(rule.as_str()))
            || d.message.contains(rule.as_str())
    });
    let message = case
        .message_contains
        .as_ref()
        .is_none_or(|m| d.message.contains(m.as_str()));
    rule && message
}

/// Where two values differ, as JSON Pointers with both values.
fn differ(at: &str, expected: &Value, got: &Value, out: &mut Vec<String>) {
    match (expected, got) {
        (Value::Object(e), Value::Object(g)) => {
            for (key, value) in e {
                let path = format!("{at}/{}", kadmit_jsonpatch::pointer::escape(key));
                match g.get(key) {
                    Some(other) => differ(&path, value, other, out),
                    None => out.push(format!("{path}: expected {value}, got nothing")),
                }
            }
            for (key, value) in g {
                if !e.contains_key(key) {
                    let path = format!("{at}/{}", kadmit_jsonpatch::pointer::escape(key));
                    out.push(format!("{path}: expected nothing, got {value}"));
                }
            }
        }
        (Value::Array(e), Value::Array(g)) if e.len() == g.len() => {
            for (i, (a, b)) in e.iter().zip(g).enumerate() {
                differ(&format!("{at}/{i}"), a, b, out);
            }
        }
        (e, g) if e != g => {
            let path = if at.is_empty() { "/" } else { at };
            out.push(format!("{path}: expected {e}, got {g}"));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_are_pointers_with_both_values() {
        let mut out = Vec::new();
        differ(
            "",
            &json!({"a": {"b/c": 1, "d": [1, 2]}, "e": true}),
            &json!({"a": {"b/c": 2, "d": [1, 3]}, "f": 1}),
            &mut out,
        );
        assert_eq!(
            out,
            [
                "/a/b~1c: expected 1, got 2",
                "/a/d/1: expected 2, got 3",
                "/e: expected true, got nothing",
                "/f: expected nothing, got 1"
            ]
        );
    }

    #[test]
    fn junit_has_a_case_per_case_and_escapes() {
        let verdict = Verdict {
            cases: vec![
                CaseResult {
                    test: "t".into(),
                    file: "f.yaml".into(),
                    resource: "web".into(),
                    expect: "admitted",
                    expectation: "admitted".into(),
                    failure: None,
                    seen: Vec::new(),
                },
                CaseResult {
                    test: "t".into(),
                    file: "f.yaml".into(),
                    resource: "batch".into(),
                    expect: "rejected",
                    expectation: "rejected by \"<x>\"".into(),
                    failure: Some("expected rejected by \"<x>\", got admitted".into()),
                    seen: vec!["warning: a & b".into()],
                },
            ],
            problems: Vec::new(),
        };
        let xml = verdict.junit();
        assert!(
            xml.contains("tests=\"2\" failures=\"1\" errors=\"0\""),
            "{xml}"
        );
        assert!(xml.contains("&quot;&lt;x&gt;&quot;"), "{xml}");
        assert!(xml.contains(">warning: a &amp; b</failure>"), "{xml}");
        assert_eq!(verdict.exit_code(), 1);
    }
}
