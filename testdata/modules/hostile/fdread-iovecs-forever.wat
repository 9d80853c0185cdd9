;; fd_read from stdin with 1,000,000 iovecs (64 KiB each, all the same buffer), forever,
;; after a 1,000,000-iteration loop that builds the list. Finding 03.
(module
  (import "wasi_snapshot_preview1" "fd_read" (func $fr (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1024)
  (func (export "validate")
    (local $i i32)
    ;; build 1,000,000 iovecs at 1MiB: {ptr=0, len=65536}
    (local.set $i (i32.const 0))
    (loop $b
      (i32.store (i32.add (i32.const 1048576) (i32.mul (local.get $i) (i32.const 8))) (i32.const 0))
      (i32.store (i32.add (i32.const 1048580) (i32.mul (local.get $i) (i32.const 8))) (i32.const 65536))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $b (i32.lt_u (local.get $i) (i32.const 1000000))))
    (loop $l (drop (call $fr (i32.const 0) (i32.const 1048576) (i32.const 1000000) (i32.const 16))) (br $l))))
