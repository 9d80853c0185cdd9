;; random_get of 64 MiB, forever: one host call does the work of millions of
;; instructions. Ran past its timeout for ever before host calls were metered. Finding 03.
(module
  (import "wasi_snapshot_preview1" "random_get" (func $rg (param i32 i32) (result i32)))
  (memory (export "memory") 1024)
  (func (export "validate")
    (loop $l (drop (call $rg (i32.const 0) (i32.const 67108864))) (br $l))))
