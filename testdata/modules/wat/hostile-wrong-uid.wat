;; Hostile k8s-wasi module: `validate` answers a well-formed, allowing
;; AdmissionReview whose response.uid is `wrong-uid`, whatever the request.
;; The host must refuse it (response.uid must equal request.uid).
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (global $text i32 (i32.const 64))
  (data (i32.const 64)
    "{\"response\":{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1\","
    "\"response\":{\"uid\":\"wrong-uid\",\"allowed\":true}},\"error\":null}\n")
  (func (export "validate")
    ;; iovec at 0: {buf = 64, len = 134}; bytes written at 8.
    (i32.store (i32.const 0) (global.get $text))
    (i32.store (i32.const 4) (i32.const 134))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))
