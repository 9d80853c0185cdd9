//! Running WebAssembly with wasmi: a module is compiled once, and every call gets a fresh
//! instance in a fresh store with the WASI sandbox, the memory limit, and fuel handed out
//! in slices so that the call is stopped once it has run past its timeout.
//!
//! The deadline is checked between slices, and on every host call (a call hook): wasmi has
//! no epoch interruption, and a watchdog thread could not reach into a running store, so
//! these are the places where a call can be stopped. Host calls charge fuel for their work
//! (`wasi.rs`), so that slices take about as long whether the module computes or calls.

use super::limits::Limits;
use super::outcome::{Failure, Output};
use super::wasi::{define_imports, Sandbox};
use std::time::{Duration, Instant};
use wasmi::{
    CallHook, CompilationMode, Config, Engine, Error, ExternType, Func, Linker, Module,
    ResumableCall, Store, TrapCode,
};

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

    /// Whether the module exports a function `name` that takes and returns nothing.
    pub fn exports_function(&self, name: &str) -> bool {
        match self.module.get_export(name) {
            Some(ExternType::Func(ty)) => ty.params().is_empty() && ty.results().is_empty(),
            _ => false,
        }
    }

    /// Instantiates the module afresh, calls `_initialize` when it is exported, then
    /// `export`, with `args` as its arguments and `stdin` as its standard input.
    pub fn call(
        &self,
        export: &str,
        args: &[&str],
        stdin: Vec<u8>,
        limits: Limits,
    ) -> Result<Output, Failure> {
        let deadline = Instant::now() + limits.timeout;
        let sandbox = Sandbox::new(args, stdin, limits.memory, deadline);
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
                let initialize = instance
                    .get_func(&store, "_initialize")
                    .filter(|_| export != "_start" && self.exports_function("_initialize"));
                if let Some(initialize) = initialize {
                    run(&mut store, initialize, deadline)?;
                }
                let entry = instance
                    .get_func(&store, export)
                    .ok_or_else(|| Error::new(format!("the module does not export {export:?}")))?;
                run(&mut store, entry, deadline)
            });
        let sandbox = store.into_data();
        let output = Output {
            stdout: sandbox.stdout,
            stderr: sandbox.stderr,
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

/// Calls `func` to the end, a slice of fuel at a time, until `deadline`.
fn run(store: &mut Store<Sandbox>, func: Func, deadline: Instant) -> Result<(), Error> {
    let mut slice = FIRST_SLICE;
    let mut slice_started = Instant::now();
    let mut call = func.call_resumable(&mut *store, &[], &mut [])?;
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
                call = pending.resume(&mut *store, &mut [])?;
            }
        }
    }
}
