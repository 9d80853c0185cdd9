;; A waPC guest that answers with a response of 2 GiB (more than its memory
;; holds, and far more than kadmit's 64 MiB response limit).
(module
  (import "wapc" "__guest_response" (func $response (param i32 i32)))
  (memory (export "memory") 1)
  (func (export "wapc_init"))
  (func (export "__guest_call") (param i32 i32) (result i32)
    (call $response (i32.const 0) (i32.const 0x7fffffff))
    i32.const 1))
