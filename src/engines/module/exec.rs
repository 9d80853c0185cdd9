//! Exec modules: the same JSON protocol over a child process, for modules not compiled to
//! WebAssembly. argv is the configured command and the use case (`validate`); the working
//! directory is the configuration root; the environment is empty but for `PATH`; the
//! process (and its process group) is killed at the timeout.

use super::outcome::{Failure, Output, OUTPUT_LIMIT, STDERR_KEPT};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// A command, resolved once: a relative program path is taken from the configuration
/// root (and confined to it by the caller); a bare name is looked up on `PATH`.
#[derive(Debug, Clone)]
pub struct ExecModule {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub working_dir: PathBuf,
}

impl ExecModule {
    pub fn call(&self, use_case: &str, stdin: &[u8], timeout: Duration) -> Result<Output, Failure> {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .arg(use_case)
            .current_dir(&self.working_dir)
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(path) = std::env::var_os("PATH") {
            command.env("PATH", path);
        }
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| Failure::Start(format!("cannot run {}: {e}", self.program.display())))?;
        let deadline = Instant::now() + timeout;
        let input = stdin.to_vec();
        let mut child_stdin = child.stdin.take().expect("stdin is piped");
        // A module that exits without reading its input closes the pipe: not an error here.
        thread::spawn(move || {
            let _ = child_stdin.write_all(&input);
        });
        let stdout = read_limited(child.stdout.take().expect("stdout is piped"), OUTPUT_LIMIT);
        let stderr = read_limited(child.stderr.take().expect("stderr is piped"), STDERR_KEPT);
        // Done when the process has exited and its output is closed: a process it left
        // behind holding stdout open counts as still running.
        let finished = wait_until(&mut child, deadline).and_then(|status| {
            let stdout = receive_until(&stdout, deadline)?;
            let stderr = receive_until(&stderr, deadline)?;
            Some((status, stdout, stderr))
        });
        let Some((status, (stdout, stdout_overflow), (stderr, _))) = finished else {
            kill(&mut child);
            return Err(Failure::Timeout(timeout));
        };
        if stdout_overflow {
            return Err(Failure::OutputLimit);
        }
        let output = Output {
            stdout,
            stderr,
            ..Output::default()
        };
        match status.code() {
            Some(0) => Ok(output),
            Some(code) => Err(Failure::Exit(code, output.stderr_text())),
            None => Err(Failure::Trap(
                format!("the process was killed ({status})"),
                output.stderr_text(),
            )),
        }
    }
}

type Received = mpsc::Receiver<(Vec<u8>, bool)>;

fn receive_until(receiver: &Received, deadline: Instant) -> Option<(Vec<u8>, bool)> {
    let left = deadline.saturating_duration_since(Instant::now());
    receiver.recv_timeout(left).ok()
}

/// Reads all of `source`, keeping the first `limit` bytes; says whether there was more.
fn read_limited(mut source: impl Read + Send + 'static, limit: usize) -> Received {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buffer = [0u8; 8192];
        let mut overflow = false;
        loop {
            match source.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = limit.saturating_sub(kept.len());
                    kept.extend_from_slice(&buffer[..n.min(room)]);
                    overflow |= n > room;
                }
            }
        }
        let _ = sender.send((kept, overflow));
    });
    receiver
}

fn wait_until(child: &mut Child, deadline: Instant) -> Option<std::process::ExitStatus> {
    let mut pause = Duration::from_micros(100);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) => {}
            Err(_) => return None,
        }
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(10));
    }
}

/// Kills the child and everything it started (its process group), then reaps it.
fn kill(child: &mut Child) {
    #[cfg(unix)]
    {
        // The child leads its own process group (`process_group(0)`); `kill -KILL -PGID`.
        let group = format!("-{}", child.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> ExecModule {
        ExecModule {
            program: PathBuf::from("sh"),
            args: vec!["-c".into(), script.into(), "module".into()],
            working_dir: std::env::temp_dir(),
        }
    }

    #[test]
    fn the_use_case_is_the_last_argument_and_stdin_is_the_request() {
        let out = sh(r#"printf '%s:' "$1"; cat"#)
            .call("validate", b"{\"request\":1}", Duration::from_secs(5))
            .unwrap();
        assert_eq!(out.stdout, b"validate:{\"request\":1}");
    }

    #[test]
    fn the_environment_is_empty_but_for_path() {
        let out = sh("env | sort")
            .call("validate", b"", Duration::from_secs(5))
            .unwrap();
        let names: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split('=').next().unwrap().to_owned())
            .filter(|n| !["PWD", "SHLVL", "_", "OLDPWD"].contains(&n.as_str()))
            .collect();
        assert_eq!(names, vec!["PATH"]);
    }

    #[test]
    fn failures_are_told_apart() {
        let failed = sh("echo broken >&2; exit 3").call("validate", b"", Duration::from_secs(5));
        assert_eq!(failed.unwrap_err(), Failure::Exit(3, "broken".into()));
        let started = Instant::now();
        let slow = sh("sleep 30").call("validate", b"", Duration::from_millis(200));
        assert_eq!(
            slow.unwrap_err(),
            Failure::Timeout(Duration::from_millis(200))
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the sleep was killed"
        );
        let missing = ExecModule {
            program: PathBuf::from("/nonexistent/module"),
            args: vec![],
            working_dir: std::env::temp_dir(),
        };
        assert!(matches!(
            missing.call("validate", b"", Duration::from_secs(1)),
            Err(Failure::Start(_))
        ));
    }

    #[test]
    fn a_child_that_outlives_the_module_does_not_hold_kadmit() {
        for script in ["sleep 30 & sleep 30", "sleep 30 & echo done"] {
            let started = Instant::now();
            let result = sh(script).call("validate", b"", Duration::from_millis(200));
            assert_eq!(
                result.unwrap_err(),
                Failure::Timeout(Duration::from_millis(200))
            );
            assert!(started.elapsed() < Duration::from_secs(10), "{script}");
        }
    }
}
