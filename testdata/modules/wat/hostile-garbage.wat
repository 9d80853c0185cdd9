;; Hostile k8s-wasi module: `validate` writes `this is not json` to stdout
;; and returns normally. The host must report output that is not JSON.
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; iovec {buf = 16, len = 16} at 0; bytes written at 8; text at 16.
  (data (i32.const 0) "\10\00\00\00\10\00\00\00")
  (data (i32.const 16) "this is not json")
  (func (export "validate")
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))
