//! Records the commit kadmit is built from and that commit's date, for `kadmit version`.
//! The date is the commit's, not the clock's, so two builds of one commit are identical.
//! Outside a git checkout (a source archive) both read `unknown`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_owned())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let date = git(&["log", "-1", "--format=%cs"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=KADMIT_COMMIT={commit}");
    println!("cargo:rustc-env=KADMIT_COMMIT_DATE={date}");
    // Rebuilt when HEAD moves (a commit or a checkout), not on every build.
    for path in [".git/HEAD", ".git/refs/heads", ".git/packed-refs"] {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
