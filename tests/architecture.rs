//! The dependency rule of docs/architecture.md, checked on the source: edge (`main.rs`,
//! `cli/`, `install.rs`) → `run` (with its output adapters in `io/`) → engines → core →
//! library crates. A file may name only its own layer or a lower one, and an engine never
//! names another engine. The library crates cannot name the binary crate at all: Cargo
//! refuses the cycle, so that half of the rule is the compiler's.
//!
//! Every `crate::…` path in the source is read (in `use` lines and in expressions), so a
//! fully qualified call reaches the check as surely as an import.

use std::path::{Path, PathBuf};

/// Where a file sits: its layer's rank (higher may depend on lower) and, for an engine,
/// which one.
#[derive(Debug, Clone, PartialEq)]
struct Place {
    layer: &'static str,
    rank: u8,
    engine: Option<String>,
}

fn place_of_module(first: &str, second: Option<&str>) -> Option<Place> {
    let place = |layer, rank| {
        Some(Place {
            layer,
            rank,
            engine: None,
        })
    };
    match first {
        "main" | "alloc" | "stdin" | "cli" | "install" => place("edge", 4),
        "run" | "io" => place("run", 3),
        "engines" => Some(Place {
            layer: "engines",
            rank: 2,
            engine: second.map(str::to_owned),
        }),
        "core" => place("core", 1),
        "lib" | "testing" => place("edge", 4),
        _ => None,
    }
}

/// The place of a source file from its path below `src/`.
fn place_of_file(relative: &Path) -> Place {
    let parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    let second = parts.get(1).map(String::as_str).filter(|s| *s != "mod");
    place_of_module(&parts[0], second).unwrap_or_else(|| {
        panic!(
            "src/{} is in no layer of docs/architecture.md",
            relative.display()
        )
    })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::a::b` path in `text` (with the line number), as its first two segments.
fn crate_paths(text: &str) -> Vec<(usize, String, Option<String>)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let preceded_by_ident = rest[..at]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            let after = &rest[at + "crate::".len()..];
            rest = after;
            if preceded_by_ident {
                continue; // `kadmit_crate::` and the like
            }
            let segment = |s: &str| -> String {
                s.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect()
            };
            let first = segment(after);
            if first.is_empty() {
                continue; // `crate::{a, b}`: checked below per name
            }
            let second = after[first.len()..]
                .strip_prefix("::")
                .map(segment)
                .filter(|s| !s.is_empty());
            found.push((number + 1, first, second));
        }
        if let Some(at) = code.find("use crate::{") {
            let list = &code[at + "use crate::{".len()..];
            for name in list.split([',', '}']) {
                let name = name.trim();
                let first: String = name
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !first.is_empty() {
                    found.push((number + 1, first, None));
                }
            }
        }
    }
    found
}

/// The violations of the rule in the source tree under `src`.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    for file in files {
        let relative = file.strip_prefix(src).expect("below src/");
        let from = place_of_file(relative);
        let text = std::fs::read_to_string(&file).expect("a readable source file");
        for (line, first, second) in crate_paths(&text) {
            let Some(to) = place_of_module(&first, second.as_deref()) else {
                continue; // a crate-root item, not a layer
            };
            let target = match &second {
                Some(second) => format!("crate::{first}::{second}"),
                None => format!("crate::{first}"),
            };
            if to.rank > from.rank {
                problems.push(format!(
                    "src/{}:{line}: {} names {target} ({} is above {})",
                    relative.display(),
                    from.layer,
                    to.layer,
                    from.layer
                ));
            } else if let (Some(a), Some(b)) = (&from.engine, &to.engine) {
                if a != b {
                    problems.push(format!(
                        "src/{}:{line}: engine {a} names engine {b} ({target}); share it through core or a library crate",
                        relative.display()
                    ));
                }
            }
        }
    }
    problems
}

#[test]
fn dependencies_point_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let problems = violations(&src);
    assert!(
        problems.is_empty(),
        "the dependency rule of docs/architecture.md is broken:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_check_sees_engine_to_engine_and_upward_paths() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let src = dir.path();
    let write = |path: &str, text: &str| {
        let path = src.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "engines/module/stage.rs",
        "use crate::engines::gatekeeper::matching::Match;\nuse crate::core::pipeline::Context;\n",
    );
    write(
        "engines/kubemod/mod.rs",
        "fn f() { crate::run::Options::new(); }\n",
    );
    write("core/pipeline.rs", "use crate::{engines, core};\n");
    write(
        "run/mod.rs",
        "use crate::engines::kubemod::KubeMod; // crate::cli::x in a comment\n",
    );
    let problems = violations(src);
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(
        problems[0].contains("core names crate::engines"),
        "{}",
        problems[0]
    );
    assert!(problems[1].contains("kubemod/mod.rs:1: engines names crate::run"));
    assert!(problems[2].contains("engine module names engine gatekeeper"));
}
