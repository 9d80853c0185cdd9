//! `gator-expand` (upstream fixture directories) and `gator-expand-inline` cases, run
//! through the kadmit binary: `kadmit generate` with the inputs on stdin prints the
//! resultants as `gator expand` does. Output is compared as parsed documents, in order.
//!
//! gator exits 1 for every failure; kadmit exits 2 for configuration errors (a mutator or
//! template that does not build) and 1 for a resource that cannot be expanded. gator's CLI
//! prefixes (`error expanding resources: `, `error parsing resources: `, ...) are its own;
//! the Gatekeeper message after them must appear in kadmit's stderr.

use crate::common::conformance::each_case;
use crate::{fixtures, load_yaml, Check};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

pub fn checks(kind: &str, cases: &[Value]) -> Option<Vec<(String, Check)>> {
    let check: fn(Value) -> Result<(), String> = match kind {
        "gator-expand" => fixture_directory,
        "gator-expand-inline" => inline,
        _ => return None,
    };
    Some(each_case(cases, check))
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

fn generate(stdin: &str) -> Result<Ran, String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kadmit"))
        .arg("generate")
        // The peer (`gator expand`) does no built-in admission: it neither defaults nor
        // validates built-in kinds, so its expected resultants carry no native defaults.
        .arg("--no-builtins")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run kadmit: {e}"))?;
    let mut input = child.stdin.take().expect("piped stdin");
    let stdin = stdin.to_owned();
    let writer = std::thread::spawn(move || input.write_all(stdin.as_bytes()));
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    writer
        .join()
        .expect("stdin writer")
        .map_err(|e| e.to_string())?;
    Ok(Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

fn parse_docs(text: &str) -> Result<Vec<Value>, String> {
    let (docs, problems) =
        kadmit::testing::core::decode::decode_all(text.as_bytes(), &Arc::from("output"));
    if !problems.is_empty() {
        return Err(format!("output does not read: {problems:?}"));
    }
    Ok(docs.into_iter().map(|d| d.value).collect())
}

fn compare(got: &[Value], want: &[Value]) -> Result<(), String> {
    if got == want {
        return Ok(());
    }
    let show = |docs: &[Value]| {
        docs.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n    ")
    };
    Err(format!(
        "resultants differ\n  got:\n    {}\n  want:\n    {}",
        show(got),
        show(want)
    ))
}

/// The YAML and JSON files under `dir`, in gator's order (a lexical walk).
fn input_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml" | "json")
            )
        })
        .collect();
    files.sort();
    files
}

fn fixture_directory(case: Value) -> Result<(), String> {
    let dir = case["args"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .find_map(|a| a.strip_prefix("--filename="))
        .ok_or("case has no --filename")?;
    let mut stdin = String::new();
    for file in input_files(&fixtures().join(dir)) {
        stdin.push_str(&std::fs::read_to_string(&file).map_err(|e| e.to_string())?);
        stdin.push_str("\n---\n");
    }
    let ran = generate(&stdin)?;
    let want_code = case["expect"]["exit_code"].as_i64().unwrap_or(0) as i32;
    if ran.code != want_code {
        return Err(format!(
            "exit {} (want {want_code}): {}",
            ran.code, ran.stderr
        ));
    }
    let expected = case["expect"]["stdout_contains_file"]
        .as_str()
        .ok_or("no stdout_contains_file")?;
    let want = load_yaml(&fixtures().join(expected));
    if want.is_empty() {
        // An empty expected file is a substring of any output: upstream checks the exit
        // code only (the case's note says so).
        return Ok(());
    }
    compare(&parse_docs(&ran.stdout)?, &want)
}

/// gator's CLI wording around the Gatekeeper message, outermost first.
const GATOR_PREFIXES: &[&str] = &[
    "error expanding resources: ",
    "error parsing resources: ",
    "error upserting mutator: ",
];

fn inline(case: Value) -> Result<(), String> {
    // Each input as a flow-style YAML document (JSON is YAML); the leading `---` keeps the
    // stream from being read as a JSON stream.
    let stdin: String = case["inputs"]
        .as_array()
        .ok_or("no inputs")?
        .iter()
        .map(|doc| format!("---\n{doc}\n"))
        .collect();
    let ran = generate(&stdin)?;
    let expect = &case["expect"];
    if let Some(stderr) = expect["stderr"].as_str() {
        let mut message = stderr;
        for prefix in GATOR_PREFIXES {
            message = message.strip_prefix(prefix).unwrap_or(message);
        }
        let want_code = if stderr.contains("error expanding resource ") {
            1
        } else {
            2
        };
        if ran.code != want_code {
            return Err(format!(
                "exit {} (want {want_code}): {}",
                ran.code, ran.stderr
            ));
        }
        if !ran.stderr.contains(message) {
            return Err(format!(
                "stderr {:?} does not contain {message:?}",
                ran.stderr
            ));
        }
        return Ok(());
    }
    if ran.code != 0 {
        return Err(format!("exit {}: {}", ran.code, ran.stderr));
    }
    let want = expect["resultants"].as_array().cloned().unwrap_or_default();
    compare(&parse_docs(&ran.stdout)?, &want)
}
