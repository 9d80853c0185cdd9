;; table.grow past the 1,048,576-element cap (each answers -1), 1,000,000 times, then
;; returns without output. Aborted kadmit like memory-grow-loop. Finding 02.
(module
  (memory (export "memory") 1)
  (table $t 1 funcref)
  (func (export "validate")
    (local $i i32)
    (loop $l
      (drop (table.grow $t (ref.null func) (i32.const 2000000)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 1000000))))))
