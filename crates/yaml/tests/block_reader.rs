//! The block-subset reader (`kadmit_yaml::block`) against the full yaml-rust2 reader: for
//! every YAML file of the repository, the shared seeds and peer fixtures, and a generated
//! set of tricky inputs, `compose_with` (block reader first) and
//! `compose_with_full_parser` must give the same documents, lines, values and errors.

use kadmit_yaml::block::read_block_document;
use kadmit_yaml::compose::{
    compose_with, compose_with_full_parser, control_character_at, ComposeError, Composed,
};
use kadmit_yaml::split::split_documents;
use kadmit_yaml::Limits;
use serde_json::Value;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Line, value and whether every reader reads the text alike (`Composed::portable`).
type Outcome = Result<Vec<(usize, Value, bool)>, ComposeError>;

fn outcome(result: Result<Vec<Composed>, ComposeError>) -> Outcome {
    result.map(|docs| {
        docs.into_iter()
            .map(|d| (d.line, d.value, d.portable))
            .collect()
    })
}

/// Tally of what was compared, so a test can tell that the block reader was used at all.
#[derive(Default)]
struct Tally {
    compared: usize,
    /// Inputs compared within the default limits, and how many of them the block reader
    /// read (tight limits make it give up by design).
    at_default_limits: usize,
    read_by_block_reader: usize,
    mismatches: Vec<String>,
}

impl Tally {
    /// Compares both readers on `text` within `limits`.
    fn check(&mut self, name: &str, text: &str, limits: &Limits) {
        self.compared += 1;
        let fast = outcome(compose_with(text, limits));
        let full = outcome(compose_with_full_parser(text, limits));
        if fast != full {
            self.mismatches.push(format!(
                "{name} (max_nodes {}):\n--- text ---\n{text}\n--- block reader first ---\n{fast:?}\n--- full parser ---\n{full:?}",
                limits.max_nodes
            ));
        }
        if *limits == Limits::default() {
            self.at_default_limits += 1;
            if control_character_at(text).is_none() && read_block_document(text, limits).is_some() {
                self.read_by_block_reader += 1;
            }
        }
    }

    /// The whole text, each `---` chunk, and each chunk under tight node limits.
    fn check_stream(&mut self, name: &str, text: &str) {
        let defaults = Limits::default();
        self.check(name, text, &defaults);
        let Ok(chunks) = split_documents(text) else {
            return;
        };
        for (i, chunk) in chunks.iter().enumerate() {
            let name = format!("{name} chunk {i}");
            self.check(&name, chunk.text, &defaults);
            for max_nodes in [1, 3, 10, 40] {
                self.check(&name, chunk.text, &Limits { max_nodes });
            }
        }
    }

    fn assert_clean(&self) {
        assert!(
            self.mismatches.is_empty(),
            "{} of {} inputs read differently:\n\n{}",
            self.mismatches.len(),
            self.compared,
            self.mismatches
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n\n")
        );
    }
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Files under `dir` (recursively) that `wanted` accepts, skipping build output and git.
fn files(dir: &Path, wanted: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !matches!(name, "target" | ".git" | "node_modules") {
                files(&path, wanted, out);
            }
        } else if wanted(&path) {
            out.push(path);
        }
    }
}

fn is_yaml(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    )
}

fn check_files(tally: &mut Tally, paths: &[PathBuf]) {
    for path in paths {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        // Inputs of at most a few megabytes: the full parser is run on every chunk several
        // times.
        if bytes.len() > 4 << 20 {
            continue;
        }
        if let Ok(text) = String::from_utf8(bytes) {
            tally.check_stream(&path.display().to_string(), &text);
        }
    }
}

#[test]
fn every_yaml_file_of_the_repository_reads_the_same() {
    let root = repo_root();
    let mut paths = Vec::new();
    files(&root, &is_yaml, &mut paths);
    // Fuzz inputs have no extension; the YAML targets' corpora are YAML text.
    for target in [
        "yaml_roundtrip",
        "transform",
        "kubemod_select",
        "gatekeeper_location",
    ] {
        files(
            &root.join("fuzz/corpus").join(target),
            &|_| true,
            &mut paths,
        );
    }
    assert!(paths.len() > 100, "only {} files found", paths.len());
    let (fuzz, manifests): (Vec<_>, Vec<_>) = paths
        .into_iter()
        .partition(|p| p.starts_with(root.join("fuzz")));
    let mut tally = Tally::default();
    check_files(&mut tally, &fuzz);
    tally.assert_clean();
    let mut tally = Tally::default();
    check_files(&mut tally, &manifests);
    tally.assert_clean();
    // Most manifests are in the block subset (whole streams with `---` are not: the
    // caller splits them first): a reader that gave up on everything would pass the
    // comparison and be useless.
    assert!(
        tally.read_by_block_reader * 2 > tally.at_default_limits,
        "the block reader read only {} of {} inputs",
        tally.read_by_block_reader,
        tally.at_default_limits
    );
}

#[test]
fn shared_seeds_and_peer_fixtures_read_the_same() {
    let shared = repo_root().join("../shared");
    let dirs = [shared.join("seeds"), shared.join("peer-fixtures")];
    if !dirs.iter().all(|d| d.is_dir()) {
        let reason = format!("{} not found", shared.display());
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("{reason}; CI=true requires the shared seeds and peer fixtures");
        }
        let bar = "*".repeat(72);
        let _ = std::io::stderr().write_all(
            format!("\n{bar}\nSKIPPED: {reason}; shared_seeds_and_peer_fixtures_read_the_same did not run\n(set CI=true to make this a failure)\n{bar}\n")
                .as_bytes(),
        );
        return;
    }
    let mut paths = Vec::new();
    for dir in &dirs {
        files(dir, &|_| true, &mut paths);
    }
    let mut tally = Tally::default();
    check_files(&mut tally, &paths);
    tally.assert_clean();
}

/// Keys, inline values and block layouts that sit at the edges of the block subset; every
/// combination is read by both readers.
#[test]
fn generated_edge_cases_read_the_same() {
    let long_key = "k".repeat(1100);
    let long_value = format!(" {}", "v".repeat(100_000));
    let keys = [
        "a",
        "'a'",
        "\"a\"",
        "\"a b\"",
        "a b",
        "a  ",
        "1",
        "1.0",
        "0x10",
        "yes",
        "Off",
        "~",
        "null",
        "''",
        "\"\"",
        "<<",
        "\"<<\"",
        "a#b",
        "'#'",
        "\"# x\"",
        "? a",
        "-a",
        "- a",
        ":a",
        "a:b",
        "&x a",
        "*x",
        "!!str a",
        "!t a",
        "ä",
        "日本",
        "\"\\u00e9\"",
        "'it''s'",
        "[a]",
        "{a: 1}",
        "%a",
        "@a",
        "`a",
        ".inf",
        "1e400",
        "18446744073709551616",
        &long_key,
        "a\"b",
        "a'b",
        "-",
        "--",
        "---a",
        "a:",
        "\"a\":",
        "a :",
    ];
    let values = [
        "",
        " ",
        " x",
        " x  ",
        "x",
        " 'x'",
        " \"x\"",
        " 'x' ",
        " ''",
        " \"\"",
        " 'a''b'",
        " \"a\\\"b\"",
        " \"\\t\\n\\\\\\/\\0\\a\\b\\e\\f\\v\\r\\N\\_\\L\\P\\ \"",
        " \"\\x41\\u00e9\\U0001F600\"",
        " \"\\uD800\"",
        " \"\\q\"",
        " \"\\x4\"",
        " \"a\\\n  b\"",
        " 'multi\n  line'",
        " \"multi\n  line\"",
        " multi\n  line",
        " yes",
        " 'yes'",
        " 0755",
        " 1_000",
        " .5",
        " 1e3",
        " .inf",
        " .NaN",
        " 1e400",
        " 18446744073709551616",
        " -9223372036854775809",
        " ~",
        " null",
        " []",
        " [ ]",
        " {}",
        " { }",
        " [a, b]",
        " [a,b]",
        " ['a', \"b\", 1, yes, -1, -x]",
        " [a, ]",
        " [a:, b]",
        " [a: 1]",
        " [a b]",
        " [a,\n  b]",
        " [[a]]",
        " {a: 1}",
        " {a: 1, 'b': \"c\", 1: yes, y: n}",
        " {a: 1,}",
        " {a: 1, a: 2}",
        " {a:1}",
        " {a :1}",
        " {a : 1}",
        " {a: [b]}",
        " {a}",
        " {a: }",
        " {<<: {}}",
        " {~: 1}",
        " {a: 1} # c",
        " {a: 1}#c",
        " {a: b c}",
        " {\"a\": 1}",
        " [] x",
        " [a]#c",
        " [a] # c",
        " # c",
        " x # c",
        " x#c",
        " 'x'#c",
        " 'x' # c",
        " \"x\" y",
        " x: y",
        " - a",
        " -a",
        " --",
        " ---",
        " ...",
        " &a x",
        " *a",
        " !!int 1",
        " !!binary aGk=",
        " |\n  a\n  b\n",
        " |-\n  a\n",
        " |+\n  a\n\n",
        " |\n  a\n\n\n",
        " |\n\n  a\n",
        " |\n    \n  a\n",
        " |\n  a\n    \n  b\n",
        " |\n  a\n   \n",
        " |\n   a\n  b\n",
        " | # c\n  a\n",
        " |#c\n  a\n",
        " |2\n   a\n",
        " |\n",
        " |\n\n",
        " |\n  # not a comment\n  a\n",
        " >\n  a\n  b\n",
        " >-\n  a\n",
        " |x\n  a\n",
        " |\n  a",
        " |-\n  a",
        "\n  - a\n  - b",
        "\n- a\n- b",
        "\n  x: 1\n  y: 2",
        "\n   x: 1\n  y: 2",
        "\n  x: 1\n   y: 2",
        "\n  - a\n  b: 1",
        "\n  # c\n  x: 1",
        "\n\n  x: 1\n",
        "\n  x",
        "\n  'x'",
        "\n  [a]",
        "\n  |\n   a\n",
        "\n - a\n -  b\n",
        " a: b: c",
        " a\n  b",
        " a\n  b\n\n  c",
        " a\n  b\n\n\n  c\n",
        " a\n  - b",
        " a\n  b: c",
        " a\n  b # c",
        " a\n  # c\n  b",
        " a # c\n  b",
        " 1\n  2",
        " yes\n  no",
        " a\n   b\n  c",
        " a  \n  b  ",
        " a\n  'b'",
        " a\n  b'c",
        " a\n  b\n x",
        " a\n  b:c",
        " a\n  #b",
        " a\n  b#c",
        " a\n  ?",
        " a\n  -",
        " a\n  ---",
        " a\n  ...",
        " a\n  b\n  \n  c",
        " 5°C",
        " ä ö",
        " 'ä'",
        " \"\\u2028\"",
        &long_value,
    ];
    let mut tally = Tally::default();
    for key in keys {
        for value in values {
            let entry = format!("{key}:{value}");
            let indented = entry.replace('\n', "\n  ");
            let deeper = entry.replace('\n', "\n    ");
            for doc in [
                format!("{entry}\n"),
                entry.clone(),
                format!("z: 0\n{entry}\nz2: 1\n"),
                format!("top:\n  {indented}\n  z: 1\n"),
                format!("- {indented}\n  z: 1\n"),
                format!("- z: 1\n  {indented}\n"),
                format!("l:\n- {indented}\n- x\n"),
                format!("l:\n  - {deeper}\n  - x\nm: 1\n"),
                format!("- - {deeper}\n"),
                format!("# head\n\n{entry}\n# tail\n"),
                format!("{entry}\n").replace('\n', "\r\n"),
            ] {
                tally.check(
                    &format!("key {key:?} value {value:?}"),
                    &doc,
                    &Limits::default(),
                );
            }
        }
    }
    tally.assert_clean();
    assert!(
        tally.read_by_block_reader > 1000,
        "{}",
        tally.read_by_block_reader
    );
}

/// Layouts of whole documents: indentation edges, nesting, comments and blank lines.
#[test]
fn generated_layouts_read_the_same() {
    let docs = [
        "- - a\n  - b\n- c\n",
        "- - - a\n- b\n",
        "-\n  a: 1\n-\n- x\n",
        "- a: 1\n  b:\n  - x\n  c: 2\n",
        "- a: 1\n  b:\n    - x\n  c: 2\n",
        "- a:\n  - x\n- b\n",
        "a:\n- x\n-\n  y: 1\nb: 2\n",
        "a:\n  - x\n - y\n",
        "a:\n  b: 1\n c: 2\n",
        "a:\n    b: 1\n  c: 2\n",
        "  a: 1\n  b: 2\n",
        "  a: 1\nb: 2\n",
        "a: 1\n  b: 2\n",
        "a:\n  b:\n    c:\n      d: 1\n  e: 2\nf: 3\n",
        "-   a: 1\n    b: 2\n",
        "-   a: 1\n  b: 2\n",
        "- a\n-b\n",
        "-\n",
        "- \n- \n",
        "a:\n",
        "a:\nb:\n",
        "a: 1\na: 2\n",
        "a: 1\n'a': 2\n",
        "yes: 1\ntrue: 2\n",
        "1: a\n'1': b\n",
        "a: &x 1\nb: *x\n",
        "a: {b: 1}\n",
        "x\n",
        "'x'\n",
        "[a]\n",
        "{}\n",
        "a: 1\n...\n",
        "%YAML 1.1\n---\na: 1\n",
        "--- \na: 1\n",
        "a: 1\n---\nb: 2\n",
        "# only a comment\n",
        "",
        "\n\n",
        "a: 1 \n b: 2\n",
        "a: 1\n\tb: 2\n",
        "a:\t1\n",
        "\u{feff}a: 1\n",
        "a: x\u{85}y\n",
        "a: x\u{2028}y\n",
        "a: \"\u{1}\"\n",
        "a: |\n  x\n  y\nb: |-\n  z\n\n\nc: 1\n",
        "a: |\n  x\n\n  y\n\nb: 1\n",
        "a:\n  b: |\n    x\n  c: 1\n",
        "- |\n  x\n- |\n   y\n",
        "a: |\n x\nb: 1\n",
        "a:\n  - |\n    x\n  - y\n",
        "a:\n- |\n  x\n- y\n",
        "a:\n- |\n x\n",
        "a: b\n# c\n  # d\nc: e\n",
        "a: b\n  # c\n  d\n",
        "a: 'x' \nb: \"y\"  # c\n",
        "a : 1\nb  :  2\n",
        "\"a\" : 1\n",
        "a: -1\nb: -.5\nc: +.5\nd: -x\ne: - x\n",
        "a: 0o17\nb: 0b12\nc: 09\nd: 1.10\ne: 1:30\nf: 2001-12-14\n",
        "a: http://x/y?z#w\nb: x #y\n",
        "a: b:c\nd: e:\n",
        "a: [1, 2]\nb: [x, y.z, -a, /p, _u]\n",
        "a: [\"x\", 'y', 'it''s']\n",
        "a:\n  -\n    b: 1\n",
        "a:\n-\n  b: 1\n- c\n",
        "description: APIVersion defines the versioned schema of this representation\n  of an object. Servers should convert\n  recognized schemas.\nkind: x\n",
        "- a\n  b\n- c\n d\n",
        "a:\n- b\n  c\n- d\n",
        "a: b\n\n  c\nd: e\n",
        "a: b\n  c\n\n\nd: e\n",
        "a: b\n  c\n  # x\nd: e\n",
        "a: b\n  c\n  # x\n  d\n",
        "- k: a\n   b\n  l: c\n",
        "- k: a\n  b\n",
    ];
    let mut tally = Tally::default();
    for doc in docs {
        tally.check_stream(&format!("{doc:?}"), doc);
        tally.check_stream(
            &format!("{doc:?} without final newline"),
            doc.trim_end_matches('\n'),
        );
    }
    // Deep nesting, around the block reader's own bound and the composer's.
    for depth in [1, 50, 127, 128, 129, 200, 511, 512, 513, 600] {
        let mut mapping = String::new();
        for level in 0..depth {
            mapping.push_str(&format!("{}k{level}:\n", "  ".repeat(level)));
        }
        mapping.push_str(&format!("{}leaf: 1\n", "  ".repeat(depth)));
        tally.check(
            &format!("mapping depth {depth}"),
            &mapping,
            &Limits::default(),
        );
        let sequence = "- ".repeat(depth) + "x\n";
        tally.check(
            &format!("sequence depth {depth}"),
            &sequence,
            &Limits::default(),
        );
    }
    tally.assert_clean();
}

/// Every line of real manifests moved, dropped, doubled or given trailing blanks: the
/// near misses a hand-written reader gets wrong.
#[test]
fn perturbed_manifests_read_the_same() {
    let root = repo_root();
    let mut paths = Vec::new();
    files(&root.join("examples"), &is_yaml, &mut paths);
    files(&root.join("testdata"), &is_yaml, &mut paths);
    let mut tally = Tally::default();
    let mut chunks_seen = 0;
    for path in &paths {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let Ok(chunks) = split_documents(&text) else {
            continue;
        };
        for chunk in chunks {
            let lines: Vec<&str> = chunk.text.lines().collect();
            if lines.len() > 60 || chunks_seen > 300 {
                continue;
            }
            chunks_seen += 1;
            for i in 0..lines.len() {
                let with = |replacement: Option<String>| {
                    let mut out = String::new();
                    for (j, line) in lines.iter().enumerate() {
                        if j != i {
                            out.push_str(line);
                            out.push('\n');
                        } else if let Some(r) = &replacement {
                            out.push_str(r);
                            out.push('\n');
                        }
                    }
                    out
                };
                let line = lines[i];
                for variant in [
                    with(None),
                    with(Some(format!(" {line}"))),
                    with(Some(line.strip_prefix(' ').unwrap_or(line).to_owned())),
                    with(Some(format!("{line}  "))),
                    with(Some(format!("{line}\n{line}"))),
                    with(Some(format!("{line} # c"))),
                ] {
                    tally.check(
                        &format!("{} line {i}", path.display()),
                        &variant,
                        &Limits::default(),
                    );
                }
            }
        }
    }
    tally.assert_clean();
    assert!(chunks_seen > 20, "only {chunks_seen} chunks perturbed");
}

/// A file named by `KADMIT_YAML_DIFF_FILE` (a generated corpus, say) is compared too, for
/// runs by hand: `KADMIT_YAML_DIFF_FILE=/tmp/c10k.yaml cargo test -p kadmit-yaml --test
/// block_reader`.
#[test]
fn a_file_named_in_the_environment_reads_the_same() {
    let Some(path) = std::env::var_os("KADMIT_YAML_DIFF_FILE") else {
        return;
    };
    let text = std::fs::read_to_string(&path).expect("KADMIT_YAML_DIFF_FILE is readable");
    let mut tally = Tally::default();
    for (i, chunk) in split_documents(&text).expect("splits").iter().enumerate() {
        tally.check(&format!("chunk {i}"), chunk.text, &Limits::default());
    }
    tally.assert_clean();
    eprintln!(
        "{} of {} chunks read by the block reader",
        tally.read_by_block_reader, tally.at_default_limits
    );
}

/// What the block reader is for: these layouts must not fall back to the full parser
/// (they are still compared with it).
#[test]
fn the_block_subset_is_read_by_the_block_reader() {
    let limits = Limits::default();
    for doc in [
        "a: 1\nb: yes\nc: '0755'\nd: \"x\\ty\"\ne: ~\nf:\n",
        "# comment\nmetadata:\n  name: web # trailing\n  labels:\n    app: web\n",
        "l:\n- a\n- b: 1\n  c: 2\n- - x\n  - y\n",
        "l:\n  - a\n  -\n    b: 1\n",
        "script: |\n  echo hi\n\n  exit 0\nstripped: |-\n  x\n",
        "flow: [a, 'b', \"c\", 1, -x]\nmap: {app: web, 'tier': \"front\"}\nempty: []\nnone: {}\n",
        "description: wrapped\n  over lines\n\n  and a paragraph\nnext: 1\n",
        "  indented: root\n  sibling: 2\n",
        "unicode: 日本語 ✓\nquoted: 'it''s'\n",
    ] {
        let read = read_block_document(doc, &limits);
        let full = outcome(compose_with_full_parser(doc, &limits));
        assert!(read.is_some(), "{doc:?} fell back to the full parser");
        assert_eq!(outcome(Ok(read.unwrap())), full, "{doc:?}");
    }
}
