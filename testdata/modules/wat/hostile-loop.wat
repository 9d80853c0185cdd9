;; Hostile k8s-wasi module: `validate` never returns.
;; The host must stop it (fuel or epoch interruption) and report a timeout.
(module
  (memory (export "memory") 1)
  (func (export "validate")
    (loop $forever
      (br $forever))))
