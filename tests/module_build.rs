//! The committed test modules (testdata/modules/wasm) are what their sources build to:
//! `testdata/modules/build.sh --check` compares source hashes always, and rebuilds and
//! compares bytes where the recorded toolchain is installed (it says so when it is not).

mod common;

use std::path::PathBuf;
use std::process::Command;

#[test]
fn committed_modules_are_current() {
    if !common::require_tool("bash") {
        return;
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/modules/build.sh");
    let output = Command::new("bash")
        .arg(&script)
        .arg("--check")
        .output()
        .expect("build.sh runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Without a wasm toolchain the script compares source hashes only and says so in a
    // `note:` line; shown loudly, straight to stderr (libtest captures eprintln!).
    for line in stdout.lines().filter(|l| l.starts_with("note:")) {
        let bar = "*".repeat(72);
        let notice = format!("\n{bar}\ntestdata/modules/build.sh --check: {line}\n{bar}\n");
        let _ = std::io::Write::write_all(&mut std::io::stderr(), notice.as_bytes());
    }
    assert!(
        output.status.success(),
        "testdata/modules/build.sh --check failed:\n{stdout}\n{stderr}"
    );
}
