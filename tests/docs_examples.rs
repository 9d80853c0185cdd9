//! The documentation's examples, run. Every ```` ```console ```` block of the pages in
//! [`DOCS`] is one named test (`cli.md:94`, after the page and the line of the opening
//! fence): its `$ ` lines run, in order, in one bash process, in a fresh copy of
//! `docs/examples/`, and what each command prints (stdout and stderr together, as a
//! terminal shows them) must be the lines the block shows under it. docs/cli.md
//! ("How the examples are tested") is the user's description of the conventions:
//!
//! - A command continues on the next line after a trailing `\`.
//! - `[..]` in a shown line stands for any text within that line (kpt's timings, kubectl's
//!   log prefix); nothing else is a pattern. Trailing white space is not compared.
//! - A command that exits non-zero must be followed by `$ echo $?` (which prints the code).
//! - In the output, the scratch directory's path is shown as `/tmp` (the working directory
//!   is `/tmp/demo`), `$HOME` as `/home/user`, and the kadmit binary as
//!   `/usr/local/bin/kadmit`.
//! - A block that needs kubectl, kpt or kustomize skips loudly when the tool is missing (a
//!   failure under `CI=true`), through `common::require_tool`.
//!
//! One more test per page (`cli.md: fences`) checks that every fence names its language and
//! that `$ ` prompts appear only in console blocks, so an example cannot escape the run by
//! being fenced without a language; illustrative output is fenced as `text`.
//!
//! docs/generators.md's worked example is run by tests/integration_generators_example.rs
//! (it writes the page's files from its blocks first), so that page is not listed here.

mod common;

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pages whose console blocks are run, relative to the repository root.
const DOCS: &[&str] = &[
    "README.md",
    "docs/cli.md",
    "docs/protocols.md",
    "docs/kubemod.md",
    "docs/yaml.md",
    "docs/builtins.md",
    "docs/admission-policies.md",
    "docs/review.md",
    "docs/update.md",
];

/// The working directory of every block (copied fresh for each block).
const EXAMPLES: &str = "docs/examples";

/// Tools a block may call besides kadmit and the shell's usual commands; a block naming one
/// in command position is skipped (loudly) when it is not on PATH.
const TOOLS: &[&str] = &["kubectl", "kpt", "kustomize"];

/// How the scratch directory, the home directory and the binary appear in shown output.
const SHOWN_SCRATCH: &str = "/tmp";
const SHOWN_HOME: &str = "/home/user";
const SHOWN_BINARY: &str = "/usr/local/bin/kadmit";

/// Stands for any text within one shown line.
const WILDCARD: &str = "[..]";

/// Printed by the harness after each command, with its exit code.
const MARK: &str = "@@kadmit-docs-example-status@@";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One `$ ` command of a block and the lines shown under it.
#[derive(Debug)]
struct Step {
    /// 1-based line of the `$ ` in the page.
    line: usize,
    command: String,
    shown: Vec<String>,
}

#[derive(Debug)]
struct Block {
    /// `cli.md:94`: the page's file name and the line of the opening fence.
    name: String,
    steps: Vec<Step>,
}

/// A fenced block: its info string, the line of its opening fence (1-based) and its lines
/// with the fence's indentation removed.
struct Fence {
    info: String,
    line: usize,
    lines: Vec<String>,
}

fn fences(text: &str) -> Vec<Fence> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        let trimmed = line.trim_start();
        if !trimmed.starts_with("```") {
            continue;
        }
        let indent = line.len() - trimmed.len();
        let mut body = Vec::new();
        for (_, line) in lines.by_ref() {
            if line.trim_start().starts_with("```") {
                break;
            }
            let strip = line.len() - line.trim_start_matches(' ').len();
            body.push(line[strip.min(indent)..].to_owned());
        }
        out.push(Fence {
            info: trimmed.trim_start_matches('`').trim().to_owned(),
            line: i + 1,
            lines: body,
        });
    }
    out
}

fn page_name(doc: &str) -> &str {
    doc.rsplit('/').next().unwrap_or(doc)
}

/// The console blocks of a page, parsed into steps.
fn console_blocks(doc: &str, text: &str) -> Vec<Result<Block, String>> {
    fences(text)
        .into_iter()
        .filter(|f| f.info == "console")
        .map(|fence| {
            let name = format!("{}:{}", page_name(doc), fence.line);
            let mut steps: Vec<Step> = Vec::new();
            let mut lines = fence.lines.iter().enumerate();
            while let Some((i, line)) = lines.next() {
                let line_no = fence.line + 1 + i;
                if let Some(command) = line.strip_prefix("$ ") {
                    let mut command = command.to_owned();
                    while command.ends_with('\\') {
                        let Some((_, next)) = lines.next() else {
                            return Err(format!("{name}: the block ends inside a command"));
                        };
                        command.push('\n');
                        command.push_str(next);
                    }
                    steps.push(Step {
                        line: line_no,
                        command,
                        shown: Vec::new(),
                    });
                } else if let Some(step) = steps.last_mut() {
                    step.shown.push(line.clone());
                } else {
                    return Err(format!(
                        "{}:{line_no}: a console block starts with a `$ ` command",
                        page_name(doc)
                    ));
                }
            }
            if steps.is_empty() {
                return Err(format!("{name}: a console block without a `$ ` command"));
            }
            Ok(Block { name, steps })
        })
        .collect()
}

/// Every fence names its language, and only console blocks hold `$ ` prompts.
fn check_fences(doc: &str, text: &str) -> Result<(), Failed> {
    let mut problems = Vec::new();
    for fence in fences(text) {
        let at = format!("{}:{}", page_name(doc), fence.line);
        if fence.info.is_empty() {
            problems.push(format!(
                "{at}: a fence without a language (console runs; text, sh, yaml, json do not)"
            ));
        } else if fence.info != "console" && fence.lines.iter().any(|l| l.starts_with("$ ")) {
            problems.push(format!(
                "{at}: `$ ` prompts in a `{}` block: fence it as console so it runs",
                fence.info
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

/// The tools of [`TOOLS`] a command line calls: the first word of each simple command,
/// after any `NAME=value` assignments.
fn tools_called(command: &str) -> Vec<&'static str> {
    let mut found = Vec::new();
    for simple in command.split(['|', '&', ';', '\n', '(', ')']) {
        let first = simple.split_whitespace().find(|word| !is_assignment(word));
        if let Some(tool) = first.and_then(|w| TOOLS.iter().find(|t| **t == w)) {
            if !found.contains(tool) {
                found.push(*tool);
            }
        }
    }
    found
}

/// `NAME=value`, a variable assignment in front of a command.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Whether `actual` is the shown line: equal, or equal with each `[..]` standing for any
/// text. Trailing white space is not compared (editors strip it from Markdown).
fn line_matches(shown: &str, actual: &str) -> bool {
    let (shown, actual) = (shown.trim_end(), actual.trim_end());
    let mut parts = shown.split(WILDCARD);
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

fn lines_match(shown: &[String], actual: &[&str]) -> bool {
    shown.len() == actual.len() && shown.iter().zip(actual).all(|(s, a)| line_matches(s, a))
}

/// Copies `from` into `to`. A symbolic link stays a link: relative as written when it
/// points inside `root` (the examples directory), else absolute, to what it points at in
/// the checkout.
fn copy_tree(root: &Path, from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let source = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            let link = std::fs::read_link(&source)?;
            let resolved = source.canonicalize()?;
            let keep = if resolved.starts_with(root) {
                link
            } else {
                resolved
            };
            symlink(&keep, &target)?;
        } else if kind.is_dir() {
            copy_tree(root, &source, &target)?;
        } else {
            std::fs::copy(&source, &target)?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn symlink(original: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(original, link)
}

#[cfg(not(unix))]
fn symlink(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::Error::other("the examples need symbolic links"))
}

/// The bash script that runs the steps, printing [`MARK`] and the exit code after each.
fn script(steps: &[Step]) -> String {
    let mut text = String::from("exec 2>&1\n");
    for step in steps {
        text.push_str(&step.command);
        text.push_str(&format!(
            "\n__kadmit_status=$?; printf '\\n%s %s\\n' '{MARK}' \"$__kadmit_status\"; (exit \"$__kadmit_status\")\n"
        ));
    }
    text
}

/// What each command printed and its exit code, from the script's output.
fn split_output(output: &str) -> Vec<(String, i32)> {
    let mut out = Vec::new();
    let mut rest = output;
    let marker = format!("\n{MARK} ");
    while let Some(at) = rest.find(&marker) {
        let printed = rest[..at].to_owned();
        let after = &rest[at + marker.len()..];
        let end = after.find('\n').unwrap_or(after.len());
        let status = after[..end].trim().parse().unwrap_or(-1);
        out.push((printed, status));
        rest = after.get(end + 1..).unwrap_or("");
    }
    out
}

fn run_block(block: &Block) -> Result<(), Failed> {
    if !common::require_tool("bash") {
        return Ok(());
    }
    for step in &block.steps {
        for tool in tools_called(&step.command) {
            if !common::require_tool(tool) {
                return Ok(());
            }
        }
    }
    let scratch = tempfile::tempdir().map_err(|e| format!("no scratch directory: {e}"))?;
    let scratch_path = scratch.path().canonicalize().map_err(|e| e.to_string())?;
    let examples = repo()
        .join(EXAMPLES)
        .canonicalize()
        .map_err(|e| format!("{EXAMPLES}: {e}"))?;
    let workdir = scratch_path.join("demo");
    let home = scratch_path.join("home");
    copy_tree(&examples, &examples, &workdir)
        .map_err(|e| format!("cannot copy {EXAMPLES}: {e}"))?;
    std::fs::create_dir_all(&home).map_err(|e| e.to_string())?;
    let binary = common::kadmit_bin()
        .canonicalize()
        .map_err(|e| format!("the kadmit binary: {e}"))?;
    let bin_dir = binary.parent().expect("the binary's directory").to_owned();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(&path)))
        .map_err(|e| e.to_string())?;

    let mut command = Command::new("bash");
    command
        .args(["--noprofile", "--norc", "-c", &script(&block.steps)])
        .current_dir(&workdir)
        .env("PATH", path)
        .env("HOME", &home)
        .env("TMPDIR", &scratch_path)
        .env("LC_ALL", "C");
    for name in [
        "KADMIT_PLUGIN_PATH",
        "KUSTOMIZE_PLUGIN_HOME",
        "KUSTOMIZE_PLUGIN_CONFIG_ROOT",
        "KUSTOMIZE_PLUGIN_CONFIG_STRING",
        "XDG_CONFIG_HOME",
        "KUBECONFIG",
    ] {
        command.env_remove(name);
    }
    let ran = common::run(&mut command, None);
    let output = ran
        .stdout
        .replace(&binary.display().to_string(), SHOWN_BINARY)
        .replace(&home.display().to_string(), SHOWN_HOME)
        .replace(&scratch_path.display().to_string(), SHOWN_SCRATCH);
    let printed = split_output(&output);

    let mut problems = Vec::new();
    for (i, step) in block.steps.iter().enumerate() {
        let Some((text, status)) = printed.get(i) else {
            problems.push(format!(
                "line {}: `{}` did not run (the shell stopped early)\n--- output ---\n{output}{}",
                step.line, step.command, ran.stderr
            ));
            break;
        };
        let actual: Vec<&str> = text.lines().collect();
        if !lines_match(&step.shown, &actual) {
            problems.push(format!(
                "line {}: `{}` prints something else\n--- shown ---\n{}\n--- printed ---\n{}",
                step.line,
                step.command,
                step.shown.join("\n"),
                actual.join("\n")
            ));
        }
        let echoed = block
            .steps
            .get(i + 1)
            .is_some_and(|next| next.command.trim() == "echo $?");
        if *status != 0 && !echoed {
            problems.push(format!(
                "line {}: `{}` exits {status}: follow it with `$ echo $?` and `{status}`",
                step.line, step.command
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\n{}", block.name, problems.join("\n\n")).into())
    }
}

/// Runs `body` on a thread named after the test, so the skip notices of
/// `common::require_tool` name it.
fn named(name: String, body: impl FnOnce() -> Result<(), Failed> + Send + 'static) -> Trial {
    Trial::test(name.clone(), move || {
        let thread = std::thread::Builder::new()
            .name(name)
            .spawn(body)
            .map_err(|e| format!("cannot start the test thread: {e}"))?;
        match thread.join() {
            Ok(result) => result,
            Err(panic) => Err(panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "the test panicked".to_owned())
                .into()),
        }
    })
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = vec![named("harness".to_owned(), check_harness)];
    for doc in DOCS {
        let text = std::fs::read_to_string(repo().join(doc))
            .unwrap_or_else(|e| panic!("cannot read {doc}: {e}"));
        let fence_text = text.clone();
        trials.push(named(format!("{}: fences", page_name(doc)), move || {
            check_fences(doc, &fence_text)
        }));
        for (i, block) in console_blocks(doc, &text).into_iter().enumerate() {
            match block {
                Ok(block) => trials.push(named(block.name.clone(), move || run_block(&block))),
                Err(problem) => trials.push(Trial::test(
                    format!("{}: block {} parses", page_name(doc), i + 1),
                    move || Err(problem.into()),
                )),
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// The harness's own pieces, on small inputs.
fn check_harness() -> Result<(), Failed> {
    let cases = [
        (
            line_matches("[PASS] \"kadmit\" in [..]", "[PASS] \"kadmit\" in 100ms"),
            true,
        ),
        (
            line_matches("[PASS] \"kadmit\" in [..]", "[FAIL] \"kadmit\" in 1s"),
            false,
        ),
        (
            line_matches(
                "E[..] \"command failed\" err=<",
                "E1122 02:57 1 run.go:72] \"command failed\" err=<",
            ),
            true,
        ),
        (line_matches("a[..]b[..]c", "abc"), true),
        (line_matches("a[..]b", "ab c"), false),
        (line_matches("exact", "exact  "), true),
        (line_matches("exact", "exact!"), false),
        (
            tools_called("KUSTOMIZE_PLUGIN_HOME=$PWD/p kubectl kustomize x | kadmit transform")
                == ["kubectl"],
            true,
        ),
        (
            tools_called("mkdir fresh && kpt pkg init fresh") == ["kpt"],
            true,
        ),
        (
            tools_called("kadmit transform --config kpt < kustomize.yaml").is_empty(),
            true,
        ),
    ];
    for (i, (got, want)) in cases.iter().enumerate() {
        if got != want {
            return Err(format!("harness case {i}: got {got}, want {want}").into());
        }
    }
    let printed = split_output(&format!("a\nb\n\n{MARK} 0\n\n{MARK} 2\nc\n{MARK} 1\n"));
    let want = vec![
        ("a\nb\n".to_owned(), 0),
        (String::new(), 2),
        ("c".to_owned(), 1),
    ];
    if printed != want {
        return Err(format!("split_output: {printed:?}").into());
    }
    Ok(())
}
