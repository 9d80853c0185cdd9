//! The host-call import of Kubewarden WASI policies, `host.call` (kubewarden/policy-evaluator
//! v0.14, "Wasi host callback"; the Go SDK's `//go:wasmimport host call` for `wasip1`):
//!
//! `call(binding_ptr, binding_len, namespace_ptr, namespace_len, operation_ptr,
//! operation_len, payload_ptr, payload_len: i32) -> i32`
//!
//! returns 0 when the host answered and 1 when it refused; either way the answer (the
//! response, or the error message) is then the policy's stdin, which it reads to its end
//! (the Go SDK's `io.ReadAll(os.Stdin)` after the call). So each call replaces what is
//! left of stdin with its answer: the policy has read its request before it asks.
//!
//! The host is the one waPC policies ask (`capabilities.rs`), with the same limits: at
//! most `MAX_HOST_CALLS` per run, fuel for the call and its bytes, the deadline checked
//! as it begins.

use super::wapc::ask_host;
use super::wasi::Sandbox;
use wasmi::{Caller, Error, Linker};

/// The import module of the WASI host call.
pub const HOST_MODULE: &str = "host";
/// Its one function.
pub const CALL: &str = "call";

/// What `host.call` returns when the host answered, and when it refused.
const ANSWERED: i32 = 0;
const REFUSED: i32 = 1;

/// Defines `host.call`; any other function of module `host` is an error naming it.
pub fn define(linker: &mut Linker<Sandbox>, name: &str) -> Result<(), String> {
    if name != CALL {
        return Err(format!(
            "the module imports {HOST_MODULE}.{name}, which is not a Kubewarden host function (kadmit provides {HOST_MODULE}.{CALL})"
        ));
    }
    linker
        .func_wrap(HOST_MODULE, CALL, call)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[allow(clippy::too_many_arguments)]
fn call(
    mut caller: Caller<'_, Sandbox>,
    binding_at: i32,
    binding_len: i32,
    namespace_at: i32,
    namespace_len: i32,
    operation_at: i32,
    operation_len: i32,
    at: i32,
    len: i32,
) -> Result<i32, Error> {
    let answer = ask_host(
        &mut caller,
        [
            (binding_at, binding_len),
            (namespace_at, namespace_len),
            (operation_at, operation_len),
            (at, len),
        ],
    )?;
    let (status, bytes) = match answer {
        Ok(response) => (ANSWERED, response),
        Err(error) => (REFUSED, error.into_bytes()),
    };
    caller.data_mut().replace_stdin(bytes);
    Ok(status)
}
