//! Stdin redirected from a file (`kadmit transform < big.yaml`) is read in parts on the
//! run's threads when it is large (src/stdin.rs): what is read is the file from where the
//! shell left stdin, exactly as a pipe delivers it, whatever `--jobs` says.

use std::io::{Seek, SeekFrom, Write};
use std::process::{Command, Stdio};

/// A stream over the parallel-read threshold (4 MiB), every document distinct, with
/// multi-byte characters so that a part boundary can fall inside one.
fn big_stream() -> String {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 5 << 20 {
        text += &format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: ns\ndata:\n  greeting: \"héllo wörld ✓ {i}\"\n---\n"
        );
        i += 1;
    }
    // No separator after the last document: the output has none either.
    text.truncate(text.len() - "---\n".len());
    text
}

fn kadmit(stdin: Stdio, jobs: &str) -> (String, String, Option<i32>) {
    let out = Command::new(env!("CARGO_BIN_EXE_kadmit"))
        .args(["transform", "--no-builtins", "--jobs", jobs])
        .stdin(stdin)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code(),
    )
}

fn piped(text: &str, jobs: &str) -> (String, String, Option<i32>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kadmit"))
        .args(["transform", "--no-builtins", "--jobs", jobs])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let owned = text.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(owned.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code(),
    )
}

fn file_with(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stream.yaml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn a_large_file_reads_as_a_pipe_delivers_it() {
    let text = big_stream();
    let (_dir, path) = file_with(&text);
    let from_pipe = piped(&text, "1");
    assert_eq!(from_pipe.2, Some(0), "{}", from_pipe.1);
    assert_eq!(
        from_pipe.0, text,
        "an untouched stream comes back as it was"
    );
    for jobs in ["1", "2", "3"] {
        let file = std::fs::File::open(&path).unwrap();
        assert_eq!(kadmit(Stdio::from(file), jobs), from_pipe, "--jobs {jobs}");
    }
}

#[test]
fn a_file_is_read_from_where_stdin_was_left() {
    let text = big_stream();
    let (_dir, path) = file_with(&text);
    // Past the first documents, at the start of one.
    let skip = text.match_indices("---\n").nth(40).unwrap().0 + 4;
    let rest = &text[skip..];
    for jobs in ["1", "2"] {
        let mut file = std::fs::File::open(&path).unwrap();
        file.seek(SeekFrom::Start(skip as u64)).unwrap();
        let (stdout, stderr, code) = kadmit(Stdio::from(file), jobs);
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(stdout, rest, "--jobs {jobs}");
    }
}

#[test]
fn a_broken_file_is_refused_the_same_way_whatever_the_jobs() {
    let mut text = big_stream();
    // A character cut in two, in the second half (another thread's part at --jobs 2).
    let at = text.len() * 3 / 4;
    let at = text[at..].find('é').unwrap() + at;
    let mut bytes = std::mem::take(&mut text).into_bytes();
    bytes.remove(at + 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stream.yaml");
    std::fs::write(&path, &bytes).unwrap();
    let one = kadmit(Stdio::from(std::fs::File::open(&path).unwrap()), "1");
    assert_eq!(one.2, Some(2));
    assert!(one.1.contains("not valid UTF-8"), "{}", one.1);
    assert!(one.0.is_empty());
    let two = kadmit(Stdio::from(std::fs::File::open(&path).unwrap()), "2");
    assert_eq!(two, one);
}
