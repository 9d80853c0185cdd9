;; A valid k8s-wasi module for the wrong use case: it exports only `authn`
;; (answering an unauthenticated TokenReview), no `validate`. The host must
;; refuse it as an admission module when loading it, naming the missing
;; function.
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 64)
    "{\"response\":{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenReview\","
    "\"status\":{\"authenticated\":false}},\"error\":null}\n")
  (func (export "authn")
    ;; iovec at 0: {buf = 64, len = 122}; bytes written at 8.
    (i32.store (i32.const 0) (i32.const 64))
    (i32.store (i32.const 4) (i32.const 122))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))
