//! Running WebAssembly with wasmi: a module is compiled once, and every call gets a fresh
//! instance in a fresh store with the WASI sandbox, the memory limit, and fuel handed out
//! in slices so that the call is stopped once it has run past its timeout.
//!
//! The deadline is checked between slices, and on every host call (a call hook): wasmi has
//! no epoch interruption, and a watchdog thread could not reach into a running store, so
//! these are the places where a call can be stopped. Host calls charge fuel for their work
//! (`wasi.rs`), so that slices take about as long whether the module computes or calls.

use super::capabilities::Host;
use super::limits::Limits;
use super::outcome::{Failure, Output};
use super::wapc::WapcState;
use super::wasi::{define_imports, Sandbox};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wasmi::{
    CallHook, CompilationMode, Config, Engine, Error, ExternType, Func, Instance, Linker, Module,
    ResumableCall, Store, TrapCode, Val,
};

/// What a waPC host calls on a fresh instance before the guest call, in this order.
const WAPC_STARTS: [&str; 2] = ["_start", "wapc_init"];
/// The waPC guest's entry point: `__guest_call(op_len: i32, payload_len: i32) -> i32`.
pub const GUEST_CALL: &str = "__guest_call";

/// Fuel between two looks at the clock: it starts small and doubles while a slice takes
/// under [`SHORT_SLICE`], so that a call is stopped within milliseconds of its deadline
/// however fast this build of the interpreter runs.
const FIRST_SLICE: u64 = 100_000;
const MAX_SLICE: u64 = 100_000_000;
const SHORT_SLICE: Duration = Duration::from_millis(2);

/// One engine per run. Modules are translated whole when they are loaded (not function by
/// function on first call, which would charge the translation to a call's fuel).
pub fn engine() -> Engine {
    let mut config = Config::default();
    config
        .consume_fuel(true)
        .compilation_mode(CompilationMode::Eager);
    Engine::new(&config)
}

/// A compiled module and the imports it gets.
pub struct WasmModule {
    engine: Engine,
    module: Module,
    linker: Linker<Sandbox>,
}

impl WasmModule {
    pub fn compile(engine: &Engine, bytes: &[u8]) -> Result<WasmModule, String> {
        let module = Module::new(engine, bytes)
            .map_err(|e| format!("not a valid WebAssembly module: {e}"))?;
        let mut linker = Linker::new(engine);
        define_imports(&mut linker, &module)?;
        Ok(WasmModule {
            engine: engine.clone(),
            module,
            linker,
        })
    }

    /// What kind of module this looks like.
    pub fn kind(&self) -> super::recognize::Kind {
        super::recognize::kind_of(&self.module)
    }

    /// Whether the module exports `__guest_call(i32, i32) -> i32`.
    pub fn exports_guest_call(&self) -> bool {
        match self.module.get_export(GUEST_CALL) {
            Some(ExternType::Func(ty)) => {
                ty.params() == [wasmi::ValType::I32; 2] && ty.results() == [wasmi::ValType::I32]
            }
            _ => false,
        }
    }

    /// Whether the module exports a function `name` that takes and returns nothing.
    pub fn exports_function(&self, name: &str) -> bool {
        match self.module.get_export(name) {
            Some(ExternType::Func(ty)) => ty.params().is_empty() && ty.results().is_empty(),
            _ => false,
        }
    }

    /// Instantiates the module afresh, calls `_initialize` when it is exported, then
    /// `export`, with `args` as its arguments and `stdin` as its standard input; a host
    /// call (`host.call`) finds nothing to read.
    pub fn call(
        &self,
        export: &str,
        args: &[&str],
        stdin: Vec<u8>,
        limits: Limits,
    ) -> Result<Output, Failure> {
        self.call_with_host(export, args, stdin, Arc::default(), limits)
    }

    /// [`WasmModule::call`], with `host` answering the module's `host.call` (a Kubewarden
    /// WASI policy's host capabilities).
    pub fn call_with_host(
        &self,
        export: &str,
        args: &[&str],
        stdin: Vec<u8>,
        host: Arc<Host>,
        limits: Limits,
    ) -> Result<Output, Failure> {
        let deadline = Instant::now() + limits.timeout;
        let mut sandbox = Sandbox::new(args, stdin, limits.memory, deadline);
        sandbox.wapc.host = host;
        self.run_instance(sandbox, limits, |store, instance| {
            let initialize = instance
                .get_func(&*store, "_initialize")
                .filter(|_| export != "_start" && self.exports_function("_initialize"));
            if let Some(initialize) = initialize {
                run(store, initialize, &[], &mut [], deadline)?;
            }
            let entry = instance
                .get_func(&*store, export)
                .ok_or_else(|| Error::new(format!("the module does not export {export:?}")))?;
            run(store, entry, &[], &mut [], deadline)
        })
    }

    /// Instantiates the module afresh and makes one waPC guest call: `_start` (TinyGo)
    /// and `wapc_init` when exported, in that order, as waPC hosts do; then
    /// `__guest_call(len(operation), len(payload))`. The response is the output's stdout;
    /// host calls are answered by `host`.
    pub fn call_wapc(
        &self,
        operation: &str,
        payload: Vec<u8>,
        host: Arc<Host>,
        limits: Limits,
    ) -> Result<Output, Failure> {
        let deadline = Instant::now() + limits.timeout;
        let mut sandbox = Sandbox::new(&[], Vec::new(), limits.memory, deadline);
        let (operation_len, payload_len) = (operation.len() as i32, payload.len() as i32);
        sandbox.wapc = WapcState::new(operation, payload, host);
        let mut status = [Val::I32(0)];
        let mut output = self.run_instance(sandbox, limits, |store, instance| {
            for start in WAPC_STARTS {
                if let Some(func) = instance
                    .get_func(&*store, start)
                    .filter(|_| self.exports_function(start))
                {
                    match run(store, func, &[], &mut [], deadline) {
                        // TinyGo's `_start` may end with `proc_exit(0)`.
                        Err(e) if e.i32_exit_status() == Some(0) => {}
                        other => other?,
                    }
                }
            }
            let guest_call = instance
                .get_func(&*store, GUEST_CALL)
                .ok_or_else(|| Error::new(format!("the module does not export {GUEST_CALL:?}")))?;
            let params = [Val::I32(operation_len), Val::I32(payload_len)];
            run(store, guest_call, &params, &mut status, deadline)
        })?;
        match status[0].i32() {
            Some(1) => Ok(output),
            _ => {
                let error = output.guest_error.take();
                Err(Failure::GuestError(match error {
                    Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                    None => "No error message set for call failure".into(),
                }))
            }
        }
    }

    /// Runs `entry` on a fresh instance in a fresh store holding `sandbox`, and tells
    /// apart how it ended: its output, or the limit it hit, its exit status or trap.
    fn run_instance(
        &self,
        sandbox: Sandbox,
        limits: Limits,
        entry: impl FnOnce(&mut Store<Sandbox>, &Instance) -> Result<(), Error>,
    ) -> Result<Output, Failure> {
        let mut store = Store::new(&self.engine, sandbox);
        store.limiter(|sandbox| &mut sandbox.limiter);
        store.call_hook(|sandbox, hook| match hook {
            CallHook::CallingHost => sandbox.check_deadline(),
            _ => Ok(()),
        });
        // Instantiation (data segments, a start function) cannot be resumed: it gets the
        // largest slice; its work is bounded by the module's size.
        set_fuel(&mut store, MAX_SLICE)?;
        let result = self
            .linker
            .instantiate_and_start(&mut store, &self.module)
            .and_then(|instance| {
                store.set_fuel(FIRST_SLICE)?;
                entry(&mut store, &instance)
            });
        let sandbox = store.into_data();
        let output = Output {
            stdout: sandbox.stdout,
            stderr: sandbox.stderr,
            logs: sandbox.wapc.logs,
            guest_error: sandbox.wapc.error,
        };
        let Err(error) = result else {
            return Ok(output);
        };
        if sandbox.limiter.exceeded {
            return Err(Failure::MemoryLimit(limits.memory));
        }
        if sandbox.stdout_overflow {
            return Err(Failure::OutputLimit);
        }
        if sandbox.wapc.host_call_storm {
            return Err(Failure::HostCallStorm);
        }
        if sandbox.wapc.response_overflow {
            return Err(Failure::ResponseLimit);
        }
        if error.downcast_ref::<Timeout>().is_some()
            || error.as_trap_code() == Some(TrapCode::OutOfFuel)
        {
            return Err(Failure::Timeout(limits.timeout));
        }
        match error.i32_exit_status() {
            Some(0) => Ok(output),
            Some(status) => Err(Failure::Exit(status, output.stderr_text())),
            None => Err(Failure::Trap(error.to_string(), output.stderr_text())),
        }
    }
}

/// The call ran past its deadline.
#[derive(Debug)]
pub(super) struct Timeout;

impl std::fmt::Display for Timeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("timed out")
    }
}

impl wasmi::errors::HostError for Timeout {}

fn set_fuel(store: &mut Store<Sandbox>, fuel: u64) -> Result<(), Failure> {
    store
        .set_fuel(fuel)
        .map_err(|e| Failure::Start(format!("cannot meter the module: {e}")))
}

/// Calls `func` with `params` to the end, a slice of fuel at a time, until `deadline`;
/// its results land in `results`.
fn run(
    store: &mut Store<Sandbox>,
    func: Func,
    params: &[Val],
    results: &mut [Val],
    deadline: Instant,
) -> Result<(), Error> {
    let mut slice = FIRST_SLICE;
    let mut slice_started = Instant::now();
    let mut call = func.call_resumable(&mut *store, params, results)?;
    loop {
        match call {
            ResumableCall::Finished => return Ok(()),
            ResumableCall::HostTrap(trap) => return Err(trap.into_host_error()),
            ResumableCall::OutOfFuel(pending) => {
                let now = Instant::now();
                if now >= deadline {
                    return Err(Error::host(Timeout));
                }
                if now - slice_started < SHORT_SLICE {
                    slice = (slice * 2).min(MAX_SLICE);
                }
                slice_started = now;
                store.set_fuel(slice)?;
                call = pending.resume(&mut *store, results)?;
            }
        }
    }
}
