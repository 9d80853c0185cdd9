//! The WASI preview 1 (`wasi_snapshot_preview1`) a module sees: a sandbox written out
//! function by function rather than a general WASI implementation with parts turned off.
//!
//! - stdin is the request; stdout and stderr are captured (stdout bounded);
//! - arguments are the protocol's (none for k8s-wasi, `policy.wasm validate` for
//!   Kubewarden); the environment is empty;
//! - there are no preopened directories, so every file and socket call answers `EBADF`
//!   (for a descriptor that does not exist) or `ENOTCAPABLE` (for stdio);
//! - both clocks read 0 (the Unix epoch) on every call and `random_get` returns the same
//!   bytes in every call of every run: modules behave the same on every run;
//! - `proc_exit` ends the call with its status; anything else answers `ENOSYS`.
//!
//! Host calls are metered like the module's own instructions: each charges fuel for the
//! bytes and buffers it touches (see [`charge`]), so the runtime looks at the clock as often
//! as when the module does the work itself; a call with more than [`MAX_IOVECS`] buffers is
//! refused; the deadline is checked at every host call (a call hook, see
//! [`Sandbox::check_deadline`]) and inside `random_get` every [`RANDOM_CHUNK`] bytes.

use super::outcome::OUTPUT_LIMIT;
use super::recognize::refusal;
use super::runtime::Timeout;
use super::wapc::{WapcState, WAPC_MODULE};
use super::wasi_host::HOST_MODULE;
use std::time::Instant;
use wasmi::{Caller, Error, Extern, ExternType, Linker, Module, ResourceLimiter, Val};

pub const WASI_MODULE: &str = "wasi_snapshot_preview1";

const ESUCCESS: i32 = 0;
const EBADF: i32 = 8;
const EFAULT: i32 = 21;
const EINVAL: i32 = 28;
const ENOSYS: i32 = 52;
const ESPIPE: i32 = 70;
const ENOTCAPABLE: i32 = 76;

const FILETYPE_CHARACTER_DEVICE: u8 = 2;
const RIGHT_FD_READ: u64 = 1 << 1;
const RIGHT_FD_WRITE: u64 = 1 << 6;

/// Most buffers one `fd_read` or `fd_write` may name: Linux's `IOV_MAX`, past which
/// `readv`/`writev` fail with `EINVAL` too. (wasi-libc's stdio uses at most 2.)
pub const MAX_IOVECS: usize = 1024;
/// Fuel for each buffer of an iovec list (reading its entry and checking it against memory)
/// and for each byte a host call copies or generates. A unit of fuel is about as long as in
/// the module's own code: measured in a release build, about 0.5 ns per unit for plain
/// instructions (wasmi charges about 1 per Wasm instruction), 3.8 ns per iovec, 0.4 ns per random
/// byte, up to 1 ns per byte copied to stdout (fresh memory).
const FUEL_PER_IOVEC: u64 = 8;
const FUEL_PER_BYTE: u64 = 1;
/// `random_get` fills its buffer this many bytes at a time, checking the deadline between.
pub const RANDOM_CHUNK: usize = 64 * 1024;

/// What one call of a module reads and writes, and how much memory it may hold.
pub struct Sandbox {
    args: Vec<Vec<u8>>,
    stdin: Vec<u8>,
    stdin_read: usize,
    pub stdout: Vec<u8>,
    pub stdout_overflow: bool,
    pub stderr: Vec<u8>,
    random: SplitMix64,
    pub limiter: MemoryLimiter,
    deadline: Instant,
    /// The waPC side of a call, and the host that `host.call` asks.
    pub wapc: WapcState,
}

impl Sandbox {
    pub fn new(args: &[&str], stdin: Vec<u8>, memory_limit: u64, deadline: Instant) -> Sandbox {
        Sandbox {
            args: args.iter().map(|a| a.as_bytes().to_vec()).collect(),
            stdin,
            stdin_read: 0,
            stdout: Vec::new(),
            stdout_overflow: false,
            stderr: Vec::new(),
            random: SplitMix64(0x6b61_646d_6974),
            limiter: MemoryLimiter {
                limit: usize::try_from(memory_limit).unwrap_or(usize::MAX),
                exceeded: false,
            },
            deadline,
            wapc: WapcState::default(),
        }
    }

    /// Makes `bytes` the whole of what stdin has left to read: a host call's answer
    /// (`wasi_host.rs`).
    pub fn replace_stdin(&mut self, bytes: Vec<u8>) {
        self.stdin = bytes;
        self.stdin_read = 0;
    }

    /// Stops the call ([`Timeout`]) once it is past its deadline. The runtime calls it as
    /// every host call begins.
    pub fn check_deadline(&self) -> Result<(), Error> {
        if Instant::now() >= self.deadline {
            Err(Error::host(Timeout))
        } else {
            Ok(())
        }
    }
}

/// Takes `fuel` from what is left of the current slice, for work done by a host call.
/// When the slice has less, it is emptied: the module stops at its next instruction and the
/// runtime looks at the clock before handing out the next slice (fuel only decides how
/// often that happens; the deadline decides when the call is stopped).
fn charge(caller: &mut Caller<'_, Sandbox>, fuel: u64) -> Result<(), Error> {
    let left = caller.get_fuel()?;
    caller.set_fuel(left.saturating_sub(fuel))
}

/// Fuel for `buffers` iovec entries and `bytes` copied.
fn copy_fuel(buffers: usize, bytes: usize) -> u64 {
    (buffers as u64)
        .saturating_mul(FUEL_PER_IOVEC)
        .saturating_add((bytes as u64).saturating_mul(FUEL_PER_BYTE))
}

/// Refuses to let memories grow past the limit, and remembers that it did: the module is
/// then stopped (a trap), and reported as over its `memoryLimit`.
pub struct MemoryLimiter {
    limit: usize,
    pub exceeded: bool,
}

/// Tables hold function references; no admission module needs more.
const MAX_TABLE_ELEMENTS: usize = 1 << 20;
const MAX_TABLES: usize = 16;

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> Result<bool, wasmi_core::LimiterError> {
        if desired > self.limit {
            self.exceeded = true;
            return Err(wasmi_core::LimiterError::ResourceLimiterDeniedAllocation);
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> Result<bool, wasmi_core::LimiterError> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }

    /// One instance per store: each call instantiates the module once.
    fn instances(&self) -> usize {
        1
    }

    fn tables(&self) -> usize {
        MAX_TABLES
    }

    /// One memory, so that the limit on each memory is the limit on all of them.
    fn memories(&self) -> usize {
        1
    }
}

/// A fixed-seed generator: `random_get` must not make runs differ.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Defines every WASI, waPC and WASI host-call (`host.call`) function `module` imports; an import from anywhere else
/// is an error naming it and saying what kind of module it looks like.
pub fn define_imports(linker: &mut Linker<Sandbox>, module: &Module) -> Result<(), String> {
    let mut defined = std::collections::HashSet::new();
    for import in module.imports() {
        let (from, name) = (import.module(), import.name());
        let ExternType::Func(ty) = import.ty() else {
            return Err(refusal(module, from, name, "which is not a function"));
        };
        if !defined.insert((from.to_owned(), name.to_owned())) {
            continue;
        }
        let defined = match from {
            WASI_MODULE => define(linker, name, ty),
            WAPC_MODULE => super::wapc::define(linker, name),
            HOST_MODULE => super::wasi_host::define(linker, name),
            _ => return Err(refusal(module, from, name, "which kadmit does not provide")),
        };
        defined.map_err(|e| format!("cannot provide {from}.{name}: {e}"))?;
    }
    Ok(())
}

fn define(linker: &mut Linker<Sandbox>, name: &str, ty: &wasmi::FuncType) -> Result<(), String> {
    let m = WASI_MODULE;
    match name {
        "args_sizes_get" => {
            linker.func_wrap(m, name, |c: Caller<'_, Sandbox>, count: i32, size: i32| {
                let (n, bytes) = sizes(&c.data().args);
                write_pair(c, count, n, size, bytes)
            })
        }
        "args_get" => linker.func_wrap(
            m,
            name,
            |c: Caller<'_, Sandbox>, pointers: i32, buffer: i32| {
                let args = c.data().args.clone();
                write_strings(c, &args, pointers, buffer)
            },
        ),
        "environ_sizes_get" => {
            linker.func_wrap(m, name, |c: Caller<'_, Sandbox>, count: i32, size: i32| {
                write_pair(c, count, 0, size, 0)
            })
        }
        "environ_get" => {
            linker.func_wrap(m, name, |_: Caller<'_, Sandbox>, _: i32, _: i32| ESUCCESS)
        }
        "fd_read" => linker.func_wrap(m, name, fd_read),
        "fd_write" => linker.func_wrap(m, name, fd_write),
        "fd_fdstat_get" => linker.func_wrap(m, name, fd_fdstat_get),
        "fd_prestat_get" | "fd_prestat_dir_name" | "fd_close" | "fd_seek" | "fd_tell" => {
            linker.func_new(m, name, ty.clone(), stdio_only(name))
        }
        "clock_res_get" => linker.func_wrap(m, name, |c: Caller<'_, Sandbox>, _: i32, out: i32| {
            write_u64(c, out, 1)
        }),
        "clock_time_get" => linker.func_wrap(
            m,
            name,
            |c: Caller<'_, Sandbox>, _: i32, _: i64, out: i32| write_u64(c, out, 0),
        ),
        "random_get" => linker.func_wrap(m, name, random_get),
        "sched_yield" => linker.func_wrap(m, name, |_: Caller<'_, Sandbox>| ESUCCESS),
        "proc_exit" => linker.func_wrap(
            m,
            name,
            |_: Caller<'_, Sandbox>, status: i32| -> Result<(), Error> {
                Err(Error::i32_exit(status))
            },
        ),
        _ => linker.func_new(m, name, ty.clone(), refuse(name)),
    }
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// Descriptor calls that mean something only for stdio: `fd_close`, `fd_seek` and
/// `fd_tell` of stdio; `fd_prestat_*` find no preopened directory.
fn stdio_only(
    name: &str,
) -> impl Fn(Caller<'_, Sandbox>, &[Val], &mut [Val]) -> Result<(), Error> + Send + Sync + 'static {
    let name = name.to_owned();
    move |_, params, results| {
        let fd = params.first().and_then(Val::i32).unwrap_or(-1);
        let errno = match (name.as_str(), fd) {
            (_, 0..=2) if name.starts_with("fd_prestat") => EBADF,
            ("fd_close", 0..=2) => ESUCCESS,
            (_, 0..=2) => ESPIPE,
            _ => EBADF,
        };
        set_errno(results, errno)
    }
}

/// Everything the sandbox does not offer: calls on a descriptor answer `ENOTCAPABLE`
/// for stdio and `EBADF` for any other (none exists); the rest `ENOSYS`.
fn refuse(
    name: &str,
) -> impl Fn(Caller<'_, Sandbox>, &[Val], &mut [Val]) -> Result<(), Error> + Send + Sync + 'static {
    let takes_descriptor = ["fd_", "path_", "sock_"]
        .iter()
        .any(|p| name.starts_with(p));
    move |_, params, results| {
        let errno = match params.first().and_then(Val::i32) {
            Some(0..=2) if takes_descriptor => ENOTCAPABLE,
            Some(_) if takes_descriptor => EBADF,
            _ => ENOSYS,
        };
        set_errno(results, errno)
    }
}

fn set_errno(results: &mut [Val], errno: i32) -> Result<(), Error> {
    match results.first_mut() {
        Some(slot) => {
            *slot = Val::I32(errno);
            Ok(())
        }
        None => Err(Error::new(
            "this WASI function is not available in kadmit's sandbox",
        )),
    }
}

fn memory(caller: &Caller<'_, Sandbox>) -> Option<wasmi::Memory> {
    match caller.get_export("memory") {
        Some(Extern::Memory(memory)) => Some(memory),
        _ => None,
    }
}

/// `len` bytes of guest memory at `at`, if they are all there.
fn slice(memory: &[u8], at: i32, len: usize) -> Option<std::ops::Range<usize>> {
    let start = usize::try_from(at as u32).ok()?;
    let end = start.checked_add(len)?;
    (end <= memory.len()).then_some(start..end)
}

fn read_u32(memory: &[u8], at: u32) -> Option<u32> {
    let range = slice(memory, at as i32, 4)?;
    Some(u32::from_le_bytes(memory[range].try_into().ok()?))
}

fn put(memory: &mut [u8], at: i32, bytes: &[u8]) -> bool {
    match slice(memory, at, bytes.len()) {
        Some(range) => {
            memory[range].copy_from_slice(bytes);
            true
        }
        None => false,
    }
}

fn write_u64(mut caller: Caller<'_, Sandbox>, at: i32, value: u64) -> i32 {
    let Some(memory) = memory(&caller) else {
        return EFAULT;
    };
    if put(memory.data_mut(&mut caller), at, &value.to_le_bytes()) {
        ESUCCESS
    } else {
        EFAULT
    }
}

fn write_pair(mut caller: Caller<'_, Sandbox>, a: i32, a_value: u32, b: i32, b_value: u32) -> i32 {
    let Some(memory) = memory(&caller) else {
        return EFAULT;
    };
    let data = memory.data_mut(&mut caller);
    if put(data, a, &a_value.to_le_bytes()) && put(data, b, &b_value.to_le_bytes()) {
        ESUCCESS
    } else {
        EFAULT
    }
}

/// How many strings, and their bytes with a NUL each.
fn sizes(strings: &[Vec<u8>]) -> (u32, u32) {
    let bytes: usize = strings.iter().map(|s| s.len() + 1).sum();
    (strings.len() as u32, bytes as u32)
}

fn write_strings(
    mut caller: Caller<'_, Sandbox>,
    strings: &[Vec<u8>],
    pointers: i32,
    buffer: i32,
) -> i32 {
    let Some(memory) = memory(&caller) else {
        return EFAULT;
    };
    let data = memory.data_mut(&mut caller);
    let mut at = buffer as u32;
    for (i, string) in strings.iter().enumerate() {
        let pointer = (pointers as u32).wrapping_add(4 * i as u32);
        let mut text = string.clone();
        text.push(0);
        if !put(data, pointer as i32, &at.to_le_bytes()) || !put(data, at as i32, &text) {
            return EFAULT;
        }
        at = at.wrapping_add(text.len() as u32);
    }
    ESUCCESS
}

/// The (pointer, length) pairs of an iovec list, checked against memory: `EINVAL` for
/// more than [`MAX_IOVECS`] (or a negative count), `EFAULT` for one outside memory.
fn iovecs(memory: &[u8], list: i32, count: i32) -> Result<Vec<std::ops::Range<usize>>, i32> {
    match usize::try_from(count) {
        Ok(count) if count <= MAX_IOVECS => {}
        _ => return Err(EINVAL),
    }
    (0..count as u32)
        .map(|i| {
            let entry = (list as u32).checked_add(i.checked_mul(8)?)?;
            let pointer = read_u32(memory, entry)?;
            let len = read_u32(memory, entry.checked_add(4)?)?;
            slice(memory, pointer as i32, len as usize)
        })
        .collect::<Option<_>>()
        .ok_or(EFAULT)
}

fn fd_read(
    mut caller: Caller<'_, Sandbox>,
    fd: i32,
    list: i32,
    count: i32,
    read: i32,
) -> Result<i32, Error> {
    match fd {
        0 => {}
        1 | 2 => return Ok(ENOTCAPABLE),
        _ => return Ok(EBADF),
    }
    let Some(memory) = memory(&caller) else {
        return Ok(EFAULT);
    };
    let (data, sandbox) = memory.data_and_store_mut(&mut caller);
    let buffers = match iovecs(data, list, count) {
        Ok(buffers) => buffers,
        Err(errno) => return Ok(errno),
    };
    let mut total = 0usize;
    for buffer in &buffers {
        let rest = &sandbox.stdin[sandbox.stdin_read..];
        let n = rest.len().min(buffer.len());
        data[buffer.start..buffer.start + n].copy_from_slice(&rest[..n]);
        sandbox.stdin_read += n;
        total += n;
    }
    let errno = if put(data, read, &(total as u32).to_le_bytes()) {
        ESUCCESS
    } else {
        EFAULT
    };
    charge(&mut caller, copy_fuel(buffers.len(), total))?;
    Ok(errno)
}

fn fd_write(
    mut caller: Caller<'_, Sandbox>,
    fd: i32,
    list: i32,
    count: i32,
    written: i32,
) -> Result<i32, Error> {
    if !matches!(fd, 1 | 2) {
        return Ok(if fd == 0 { ENOTCAPABLE } else { EBADF });
    }
    let Some(memory) = memory(&caller) else {
        return Ok(EFAULT);
    };
    let (data, sandbox) = memory.data_and_store_mut(&mut caller);
    let buffers = match iovecs(data, list, count) {
        Ok(buffers) => buffers,
        Err(errno) => return Ok(errno),
    };
    let mut total = 0usize;
    // What is copied: stdout whole (at most OUTPUT_LIMIT in all), stderr up to STDERR_KEPT.
    let mut copied = 0usize;
    for buffer in &buffers {
        let bytes = &data[buffer.clone()];
        total += bytes.len();
        if fd == 1 {
            if sandbox.stdout.len() + bytes.len() > OUTPUT_LIMIT {
                sandbox.stdout_overflow = true;
                return Err(Error::new("stdout limit exceeded"));
            }
            sandbox.stdout.extend_from_slice(bytes);
            copied += bytes.len();
        } else {
            let room = super::outcome::STDERR_KEPT.saturating_sub(sandbox.stderr.len());
            let kept = bytes.len().min(room);
            sandbox.stderr.extend_from_slice(&bytes[..kept]);
            copied += kept;
        }
    }
    let errno = if put(data, written, &(total as u32).to_le_bytes()) {
        ESUCCESS
    } else {
        EFAULT
    };
    charge(&mut caller, copy_fuel(buffers.len(), copied))?;
    Ok(errno)
}

fn fd_fdstat_get(mut caller: Caller<'_, Sandbox>, fd: i32, out: i32) -> i32 {
    let rights = match fd {
        0 => RIGHT_FD_READ,
        1 | 2 => RIGHT_FD_WRITE,
        _ => return EBADF,
    };
    let Some(memory) = memory(&caller) else {
        return EFAULT;
    };
    // struct fdstat { u8 filetype; u16 flags (at 2); u64 rights_base (at 8); u64 rights_inheriting (at 16) }
    let mut stat = [0u8; 24];
    stat[0] = FILETYPE_CHARACTER_DEVICE;
    stat[8..16].copy_from_slice(&rights.to_le_bytes());
    if put(memory.data_mut(&mut caller), out, &stat) {
        ESUCCESS
    } else {
        EFAULT
    }
}

/// Fills the buffer [`RANDOM_CHUNK`] bytes at a time, checking the deadline between
/// chunks: the buffer may be as large as memory, and one call must not outlast the timeout.
fn random_get(mut caller: Caller<'_, Sandbox>, buffer: i32, len: i32) -> Result<i32, Error> {
    let Some(memory) = memory(&caller) else {
        return Ok(EFAULT);
    };
    let (data, sandbox) = memory.data_and_store_mut(&mut caller);
    let Some(range) = slice(data, buffer, len as u32 as usize) else {
        return Ok(EFAULT);
    };
    let filled = range.len();
    for block in data[range].chunks_mut(RANDOM_CHUNK) {
        sandbox.check_deadline()?;
        // RANDOM_CHUNK is a multiple of 8: the bytes are the same as in one pass.
        for chunk in block.chunks_mut(8) {
            let bytes = sandbox.random.next().to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }
    charge(&mut caller, (filled as u64).saturating_mul(FUEL_PER_BYTE))?;
    Ok(ESUCCESS)
}
