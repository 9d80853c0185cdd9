//! A compiled module, WebAssembly or exec, and how each protocol calls it: k8s-wasi calls
//! the use case's export (`validate`, `authn`, `authz`); Kubewarden WASI runs `_start`
//! with argv `policy.wasm <use case>`; Kubewarden waPC makes the guest call whose operation
//! is the use case (`validate`, `validate_settings`, `protocol_version`); an exec module
//! gets the use case as its last argument.

use super::capabilities::Host;
use super::exec::ExecModule;
use super::limits::Limits;
use super::outcome::{Failure, Output};
use super::runtime::WasmModule;
use super::spec::Protocol;
use std::sync::Arc;

/// The argv[0] Kubewarden gives a WASI policy.
const KUBEWARDEN_ARGV0: &str = "policy.wasm";

#[derive(Clone)]
pub enum Runner {
    Wasm(Arc<WasmModule>),
    Exec(ExecModule),
}

impl Runner {
    /// `WASM` or `exec`, as messages name the module.
    pub fn noun(&self) -> &'static str {
        match self {
            Runner::Wasm(_) => "WASM",
            Runner::Exec(_) => "exec",
        }
    }

    /// Calls the module for `use_case` with `stdin` (a waPC guest's payload); the host
    /// calls of a Kubewarden policy (waPC `__host_call`, WASI `host.call`) are answered by
    /// `host`.
    pub fn call(
        &self,
        protocol: Protocol,
        use_case: &str,
        stdin: Vec<u8>,
        host: &Arc<Host>,
        limits: Limits,
    ) -> Result<Output, Failure> {
        match (self, protocol) {
            (Runner::Wasm(module), Protocol::KubewardenWapc) => {
                module.call_wapc(use_case, stdin, Arc::clone(host), limits)
            }
            (Runner::Wasm(module), Protocol::K8sWasi) => module.call(use_case, &[], stdin, limits),
            (Runner::Wasm(module), Protocol::KubewardenWasi) => {
                let args = [KUBEWARDEN_ARGV0, use_case];
                module.call_with_host("_start", &args, stdin, Arc::clone(host), limits)
            }
            (Runner::Exec(command), _) => command.call(use_case, &stdin, limits.timeout),
        }
    }

    /// Why the module cannot serve `use_case` under `protocol`, checked once at load:
    /// the reference host's `missing function 'validate' in module '<name>'`.
    pub fn check_entry(
        &self,
        protocol: Protocol,
        use_case: &str,
        name: &str,
    ) -> Result<(), String> {
        let Runner::Wasm(module) = self else {
            return Ok(());
        };
        let export = match protocol {
            Protocol::K8sWasi => use_case,
            Protocol::KubewardenWasi => "_start",
            Protocol::KubewardenWapc if module.exports_guest_call() => return Ok(()),
            Protocol::KubewardenWapc => {
                return Err(format!(
                    "missing function '__guest_call' (i32, i32) -> i32 in module '{name}': not a waPC policy"
                ))
            }
        };
        if module.exports_function(export) {
            Ok(())
        } else {
            Err(format!("missing function '{export}' in module '{name}'"))
        }
    }
}
