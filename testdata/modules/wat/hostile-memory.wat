;; Hostile k8s-wasi module: `validate` grows its memory one 64 KiB page
;; at a time, writing to each new page, up to the 4 GiB maximum of a
;; 32-bit memory. When a grow is refused (memory.grow answers -1: the
;; host's memory limit, or the 4 GiB maximum) it traps with `unreachable`,
;; so a host with a memory limiter sees a trap right after the refused
;; grow and can report "memory limit exceeded", not a timeout.
(module
  (memory (export "memory") 1)
  (func (export "validate")
    (local $old_pages i32)
    (loop $grow
      (local.set $old_pages (memory.grow (i32.const 1)))
      (if (i32.eq (local.get $old_pages) (i32.const -1))
        (then unreachable))
      ;; Touch the first and the last word of the new page.
      (i32.store
        (i32.mul (local.get $old_pages) (i32.const 65536))
        (i32.const 0x6b61646d))
      (i32.store
        (i32.add (i32.mul (local.get $old_pages) (i32.const 65536)) (i32.const 65532))
        (i32.const 0x6b61646d))
      (br $grow))))
