;; Hostile k8s-wasi module: `validate` calls proc_exit(3).
;; The host must treat the non-zero exit as a failure and ignore any output.
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory (export "memory") 1)
  (func (export "validate")
    (call $proc_exit (i32.const 3))))
