;; random_get of 62.5 MiB, 1,000 times, then returns without output: about 40 s of host
;; work, once charged like one instruction per call. Finding 03.
(module
  (import "wasi_snapshot_preview1" "random_get" (func $rg (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fw (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fr (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1000)
  (func (export "validate")
    (local $i i32)
    (loop $l
      (drop (call $rg (i32.const 0) (i32.const 65536000)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 1000))))))
