;; A waPC guest whose __guest_call loops forever.
(module
  (memory (export "memory") 1)
  (func (export "wapc_init"))
  (func (export "__guest_call") (param i32 i32) (result i32)
    (loop $forever (br $forever))
    i32.const 1))
