;; Hostile k8s-wasi module: `validate` traps at once (`unreachable`).
;; The host must report the trap as an error naming the module.
(module
  (memory (export "memory") 1)
  (func (export "validate")
    unreachable))
