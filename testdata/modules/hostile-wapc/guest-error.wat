;; A waPC guest that fails every call with __guest_error("broken policy").
(module
  (import "wapc" "__guest_error" (func $error (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "broken policy")
  (func (export "wapc_init"))
  (func (export "__guest_call") (param i32 i32) (result i32)
    (call $error (i32.const 0) (i32.const 13))
    i32.const 0))
