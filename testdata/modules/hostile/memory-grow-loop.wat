;; memory.grow past the declared maximum (each answers -1, no trap), 2,000,000 times,
;; then returns without output. With wasmi's tail-call dispatch every executed grow left a
;; native stack frame behind and kadmit aborted (stack overflow). Finding 02.
(module
  (memory (export "memory") 1 1)
  (func (export "validate")
    (local $i i32)
    (loop $l
      (drop (memory.grow (i32.const 1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 2000000))))))
