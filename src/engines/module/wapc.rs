//! The waPC guest protocol (module `wapc`), as Kubewarden's waPC policies import it: the
//! host hands the guest an operation and a payload (`__guest_call(op_len, payload_len)`,
//! then `__guest_request(op_ptr, ptr)` copies them in); the guest answers with
//! `__guest_response(ptr, len)` or `__guest_error(ptr, len)` and returns 1 or 0; between,
//! it may call the host (`__host_call`, whose answer it reads with `__host_response_len`
//! and `__host_response`, or `__host_error_len` and `__host_error`) and log
//! (`__console_log`, TinyGo's).
//!
//! Limits: a response may be as large as the stdout limit ([`OUTPUT_LIMIT`]); one guest call
//! may make at most [`MAX_HOST_CALLS`] host calls; each host call charges
//! [`FUEL_PER_HOST_CALL`] plus a unit per byte it copies, and, like every host call,
//! checks the deadline as it begins.

use super::capabilities::{Host, Logs};
use super::outcome::{OUTPUT_LIMIT, STDERR_KEPT};
use super::wasi::Sandbox;
use std::sync::Arc;
use wasmi::{Caller, Error, Extern, Linker};

pub const WAPC_MODULE: &str = "wapc";

/// Most host calls one guest call may make: a policy asks the host a few times per
/// request; a loop of host calls is a storm, stopped here (or sooner by the timeout).
pub const MAX_HOST_CALLS: u32 = 10_000;
/// Fuel a host call costs besides its bytes: about a microsecond, the order of the work
/// of parsing its request and looking it up.
const FUEL_PER_HOST_CALL: u64 = 2_000;

/// The functions of module `wapc` kadmit provides.
pub const FUNCTIONS: [&str; 9] = [
    "__guest_request",
    "__guest_response",
    "__guest_error",
    "__host_call",
    "__host_response_len",
    "__host_response",
    "__host_error_len",
    "__host_error",
    "__console_log",
];

/// One guest call's side of the protocol.
#[derive(Default)]
pub struct WapcState {
    pub operation: Vec<u8>,
    pub payload: Vec<u8>,
    /// What `__guest_error` set.
    pub error: Option<Vec<u8>>,
    host_response: Vec<u8>,
    host_error: Vec<u8>,
    host_calls: u32,
    pub host_call_storm: bool,
    /// The guest tried to answer more than [`OUTPUT_LIMIT`].
    pub response_overflow: bool,
    pub host: Arc<Host>,
    pub logs: Logs,
}

impl WapcState {
    pub fn new(operation: &str, payload: Vec<u8>, host: Arc<Host>) -> WapcState {
        WapcState {
            operation: operation.as_bytes().to_vec(),
            payload,
            host,
            ..WapcState::default()
        }
    }
}

/// Why a guest call was stopped for making too many host calls.
#[derive(Debug)]
pub struct HostCallStorm;

impl std::fmt::Display for HostCallStorm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "more than {MAX_HOST_CALLS} host calls in one call")
    }
}

impl wasmi::errors::HostError for HostCallStorm {}

/// Defines the waPC function `name`; an unknown name is an error naming it.
pub fn define(linker: &mut Linker<Sandbox>, name: &str) -> Result<(), String> {
    let m = WAPC_MODULE;
    match name {
        "__guest_request" => linker.func_wrap(m, name, guest_request),
        "__guest_response" => linker.func_wrap(m, name, guest_response),
        "__guest_error" => linker.func_wrap(m, name, guest_error),
        "__host_call" => linker.func_wrap(m, name, host_call),
        "__host_response_len" => linker.func_wrap(m, name, |c: Caller<'_, Sandbox>| {
            c.data().wapc.host_response.len() as i32
        }),
        "__host_response" => linker.func_wrap(m, name, |mut c: Caller<'_, Sandbox>, at: i32| {
            let bytes = std::mem::take(&mut c.data_mut().wapc.host_response);
            let result = write(&mut c, at, &bytes);
            c.data_mut().wapc.host_response = bytes;
            result
        }),
        "__host_error_len" => linker.func_wrap(m, name, |c: Caller<'_, Sandbox>| {
            c.data().wapc.host_error.len() as i32
        }),
        "__host_error" => linker.func_wrap(m, name, |mut c: Caller<'_, Sandbox>, at: i32| {
            let bytes = std::mem::take(&mut c.data_mut().wapc.host_error);
            let result = write(&mut c, at, &bytes);
            c.data_mut().wapc.host_error = bytes;
            result
        }),
        "__console_log" => linker.func_wrap(m, name, console_log),
        _ => {
            return Err(format!(
                "the module imports {m}.{name}, which is not a waPC function (kadmit provides {})",
                FUNCTIONS.join(", ")
            ))
        }
    }
    .map(|_| ())
    .map_err(|e| e.to_string())
}

fn memory(caller: &Caller<'_, Sandbox>) -> Result<wasmi::Memory, Error> {
    match caller.get_export("memory") {
        Some(Extern::Memory(memory)) => Ok(memory),
        _ => Err(Error::new("the module exports no memory")),
    }
}

/// `len` bytes of guest memory at `at`, copied out; a trap when they are not all there.
fn read(caller: &mut Caller<'_, Sandbox>, at: i32, len: i32) -> Result<Vec<u8>, Error> {
    let memory = memory(caller)?;
    let data = memory.data(&*caller);
    let start = at as u32 as usize;
    let end = start
        .checked_add(len as u32 as usize)
        .filter(|&end| end <= data.len())
        .ok_or_else(|| Error::new("a host call named bytes outside the module's memory"))?;
    let bytes = data[start..end].to_vec();
    charge(caller, bytes.len() as u64)?;
    Ok(bytes)
}

fn write(caller: &mut Caller<'_, Sandbox>, at: i32, bytes: &[u8]) -> Result<(), Error> {
    let memory = memory(caller)?;
    let data = memory.data_mut(&mut *caller);
    let start = at as u32 as usize;
    let end = start
        .checked_add(bytes.len())
        .filter(|&end| end <= data.len())
        .ok_or_else(|| Error::new("a host call named bytes outside the module's memory"))?;
    data[start..end].copy_from_slice(bytes);
    charge(caller, bytes.len() as u64)
}

/// Takes `fuel` from the current slice (see `wasi.rs`'s `charge`).
fn charge(caller: &mut Caller<'_, Sandbox>, fuel: u64) -> Result<(), Error> {
    let left = caller.get_fuel()?;
    caller.set_fuel(left.saturating_sub(fuel))
}

fn guest_request(mut caller: Caller<'_, Sandbox>, op_at: i32, at: i32) -> Result<(), Error> {
    let operation = std::mem::take(&mut caller.data_mut().wapc.operation);
    let payload = std::mem::take(&mut caller.data_mut().wapc.payload);
    let result =
        write(&mut caller, op_at, &operation).and_then(|()| write(&mut caller, at, &payload));
    let state = &mut caller.data_mut().wapc;
    state.operation = operation;
    state.payload = payload;
    result
}

fn guest_response(mut caller: Caller<'_, Sandbox>, at: i32, len: i32) -> Result<(), Error> {
    if len as u32 as usize > OUTPUT_LIMIT {
        caller.data_mut().wapc.response_overflow = true;
        return Err(Error::new("response limit exceeded"));
    }
    let bytes = read(&mut caller, at, len)?;
    caller.data_mut().stdout = bytes;
    Ok(())
}

fn guest_error(mut caller: Caller<'_, Sandbox>, at: i32, len: i32) -> Result<(), Error> {
    let kept = (len as u32 as usize).min(STDERR_KEPT) as i32;
    let bytes = read(&mut caller, at, kept)?;
    caller.data_mut().wapc.error = Some(bytes);
    Ok(())
}

fn console_log(mut caller: Caller<'_, Sandbox>, at: i32, len: i32) -> Result<(), Error> {
    let room = STDERR_KEPT.saturating_sub(caller.data().stderr.len());
    let kept = (len as u32 as usize).min(room) as i32;
    let mut bytes = read(&mut caller, at, kept)?;
    bytes.push(b'\n');
    caller.data_mut().stderr.extend_from_slice(&bytes);
    charge(&mut caller, FUEL_PER_HOST_CALL)
}

/// Where the guest's strings and payload of one host call are: (pointer, length) of
/// binding, namespace, operation and payload, as both `__host_call` and WASI's `host.call`
/// take them.
pub type HostCallArgs = [(i32, i32); 4];

/// Asks the host on behalf of the guest, under the limits every host call has: at most
/// [`MAX_HOST_CALLS`] per guest call (then a [`HostCallStorm`] stops it), and fuel for the
/// call and for each byte read and answered. The answer is the response, or the error the
/// policy receives; `Err` stops the guest.
pub fn ask_host(
    caller: &mut Caller<'_, Sandbox>,
    args: HostCallArgs,
) -> Result<Result<Vec<u8>, String>, Error> {
    let state = &mut caller.data_mut().wapc;
    state.host_calls += 1;
    if state.host_calls > MAX_HOST_CALLS {
        state.host_call_storm = true;
        return Err(Error::host(HostCallStorm));
    }
    charge(caller, FUEL_PER_HOST_CALL)?;
    let [binding, namespace, operation, payload] = args;
    let binding = read(caller, binding.0, binding.1)?;
    let namespace = read(caller, namespace.0, namespace.1)?;
    let operation = read(caller, operation.0, operation.1)?;
    let payload = read(caller, payload.0, payload.1)?;
    let state = &mut caller.data_mut().wapc;
    let host = Arc::clone(&state.host);
    let answer = host.answer(
        &String::from_utf8_lossy(&binding),
        &String::from_utf8_lossy(&namespace),
        &String::from_utf8_lossy(&operation),
        &payload,
        &mut state.logs,
    );
    let size = match &answer {
        Ok(response) => response.len(),
        Err(error) => error.len(),
    };
    charge(caller, size as u64)?;
    Ok(answer)
}

/// `__host_call`: 1 with the response for `__host_response`, or 0 with the error for
/// `__host_error`.
#[allow(clippy::too_many_arguments)]
fn host_call(
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
    let state = &mut caller.data_mut().wapc;
    state.host_response.clear();
    state.host_error.clear();
    Ok(match answer {
        Ok(response) => {
            state.host_response = response;
            1
        }
        Err(error) => {
            state.host_error = error.into_bytes();
            0
        }
    })
}
