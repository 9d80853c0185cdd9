//! What kind of WebAssembly module this looks like, from its imports and exports, so
//! that a module kadmit cannot run is refused with a message saying what it is and what
//! to do: a k8s-wasi module, a Kubewarden WASI or waPC policy, or an OPA/Rego policy
//! compiled to WebAssembly (Kubewarden's `opa` and `gatekeeper` execution modes).

use super::wapc::WAPC_MODULE;
use super::wasi::WASI_MODULE;
use wasmi::Module;

/// The kinds of module users bring, as messages name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    K8sWasi,
    KubewardenWasi,
    KubewardenWapc,
    OpaRego,
    Unknown,
}

impl Kind {
    pub fn describe(self) -> &'static str {
        match self {
            Kind::K8sWasi => "a k8s-wasi module (spec.protocol: k8s-wasi)",
            Kind::KubewardenWasi => "a Kubewarden WASI policy (spec.protocol: kubewarden-wasi)",
            Kind::KubewardenWapc => "a Kubewarden waPC policy (spec.protocol: kubewarden-wapc)",
            Kind::OpaRego => "an OPA/Rego policy compiled to WebAssembly (Kubewarden's opa or gatekeeper execution mode), which kadmit does not run",
            Kind::Unknown => "none of the module kinds kadmit runs (k8s-wasi, Kubewarden WASI, Kubewarden waPC)",
        }
    }
}

/// OPA's wasm ABI: the imports every compiled Rego policy has, and its entry points.
const OPA_IMPORTS: [&str; 3] = ["opa_abort", "opa_builtin0", "opa_println"];
const OPA_EXPORTS: [&str; 3] = ["opa_eval", "opa_eval_ctx_new", "opa_heap_ptr_get"];

pub fn kind_of(module: &Module) -> Kind {
    let imports: Vec<(String, String)> = module
        .imports()
        .map(|i| (i.module().to_owned(), i.name().to_owned()))
        .collect();
    let exports: Vec<String> = module.exports().map(|e| e.name().to_owned()).collect();
    let exports_any = |names: &[&str]| exports.iter().any(|e| names.contains(&e.as_str()));
    if imports
        .iter()
        .any(|(m, n)| m == "env" && OPA_IMPORTS.contains(&n.as_str()))
        || exports_any(&OPA_EXPORTS)
    {
        Kind::OpaRego
    } else if imports.iter().any(|(m, _)| m == WAPC_MODULE) || exports_any(&["__guest_call"]) {
        Kind::KubewardenWapc
    } else if exports_any(&["validate", "authn", "authz"]) {
        Kind::K8sWasi
    } else if exports_any(&["_start"]) {
        Kind::KubewardenWasi
    } else {
        Kind::Unknown
    }
}

/// Why an import cannot be provided: the import, and what the module looks like.
pub fn refusal(module: &Module, from: &str, name: &str, why: &str) -> String {
    format!(
        "the module imports {from}.{name}, {why} (kadmit provides the functions of {WASI_MODULE} and {WAPC_MODULE}); it looks like {}",
        kind_of(module).describe()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(wat: &str) -> Kind {
        let bytes = wat::parse_str(wat).unwrap();
        kind_of(&Module::new(&wasmi::Engine::default(), &bytes[..]).unwrap())
    }

    #[test]
    fn modules_are_told_apart_by_their_imports_and_exports() {
        assert_eq!(
            kind(
                r#"(module (import "env" "opa_abort" (func (param i32))) (func (export "eval")))"#
            ),
            Kind::OpaRego
        );
        assert_eq!(
            kind(
                r#"(module (func (export "__guest_call") (param i32 i32) (result i32) i32.const 1))"#
            ),
            Kind::KubewardenWapc
        );
        assert_eq!(
            kind(r#"(module (func (export "validate")))"#),
            Kind::K8sWasi
        );
        assert_eq!(
            kind(r#"(module (func (export "_start")))"#),
            Kind::KubewardenWasi
        );
        assert_eq!(kind(r#"(module)"#), Kind::Unknown);
    }
}
