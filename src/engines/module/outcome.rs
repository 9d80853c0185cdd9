//! What running a module produced: its output, or why it produced none that counts.

use super::capabilities::Logs;
use super::limits::{format_bytes, format_duration};
use super::wapc::MAX_HOST_CALLS;
use std::fmt;
use std::time::Duration;

/// Most a module may write to stdout: a response is one object, never this large.
pub const OUTPUT_LIMIT: usize = 64 * 1024 * 1024;
/// How much of stderr kadmit keeps to show in messages.
pub const STDERR_KEPT: usize = 4096;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Output {
    /// What the module wrote to stdout; a waPC guest's response.
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// A waPC policy's log lines (`tracing`/`log` host calls).
    pub logs: Logs,
    /// What a waPC guest passed to `__guest_error`.
    pub guest_error: Option<Vec<u8>>,
}

impl Output {
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).trim().to_owned()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The module could not be started or instantiated.
    Start(String),
    /// Stopped at `spec.timeout`.
    Timeout(Duration),
    /// Stopped when it tried to grow past `spec.memoryLimit`.
    MemoryLimit(u64),
    /// Wrote more than [`OUTPUT_LIMIT`] to stdout.
    OutputLimit,
    /// Exited (`proc_exit`, or a process exit) with a status other than 0; and its stderr.
    Exit(i32, String),
    /// A WebAssembly trap, or an exec module killed by a signal; and its stderr.
    Trap(String, String),
    /// A waPC guest's response was larger than [`OUTPUT_LIMIT`].
    ResponseLimit,
    /// A waPC guest answered its call with `__guest_error`.
    GuestError(String),
    /// A waPC guest made more than [`MAX_HOST_CALLS`] host calls in one call.
    HostCallStorm,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Start(message) => write!(f, "{message}"),
            Failure::Timeout(limit) => write!(
                f,
                "it ran longer than its timeout of {} and was stopped",
                format_duration(*limit)
            ),
            Failure::MemoryLimit(limit) => write!(
                f,
                "it needed more memory than its memory limit of {} and was stopped",
                format_bytes(*limit)
            ),
            Failure::OutputLimit => write!(
                f,
                "it wrote more than {} to stdout and was stopped",
                format_bytes(OUTPUT_LIMIT as u64)
            ),
            Failure::Exit(code, stderr) => {
                write!(f, "exited with status {code}")?;
                write_stderr(f, stderr)
            }
            Failure::Trap(trap, stderr) => {
                write!(f, "trapped: {trap}")?;
                write_stderr(f, stderr)
            }
            Failure::ResponseLimit => write!(
                f,
                "its response was larger than {} and it was stopped",
                format_bytes(OUTPUT_LIMIT as u64)
            ),
            Failure::GuestError(message) => write!(f, "returned an error: {message}"),
            Failure::HostCallStorm => write!(
                f,
                "it made more than {MAX_HOST_CALLS} host calls in one call and was stopped"
            ),
        }
    }
}

fn write_stderr(f: &mut fmt::Formatter<'_>, stderr: &str) -> fmt::Result {
    if stderr.is_empty() {
        Ok(())
    } else {
        write!(f, "; stderr: '{stderr}'")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_say_which_limit_and_what_the_module_said() {
        assert_eq!(
            Failure::Timeout(Duration::from_millis(500)).to_string(),
            "it ran longer than its timeout of 500ms and was stopped"
        );
        assert_eq!(
            Failure::MemoryLimit(64 << 20).to_string(),
            "it needed more memory than its memory limit of 64Mi and was stopped"
        );
        assert_eq!(
            Failure::Exit(3, "bad input".into()).to_string(),
            "exited with status 3; stderr: 'bad input'"
        );
        assert_eq!(
            Failure::Trap("unreachable".into(), String::new()).to_string(),
            "trapped: unreachable"
        );
    }
}
