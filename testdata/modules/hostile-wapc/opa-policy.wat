;; The shape of an OPA/Rego policy compiled to WebAssembly: kadmit must refuse
;; it, naming the import and saying what it is.
(module
  (import "env" "opa_abort" (func (param i32)))
  (import "env" "memory" (memory 2))
  (func (export "opa_eval") (param i32 i32 i32 i32 i32 i32 i32) (result i32) i32.const 0))
