;; A Kubewarden WASI policy that calls the host (host.call kubewarden/tracing/log) forever.
(module
  (import "host" "call" (func $host_call (param i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "kubewarden")
  (data (i32.const 16) "tracing")
  (data (i32.const 32) "log")
  (data (i32.const 48) "{\"level\":\"info\",\"message\":\"storm\"}")
  (func (export "_start")
    (loop $forever
      (drop (call $host_call (i32.const 0) (i32.const 10) (i32.const 16) (i32.const 7)
                             (i32.const 32) (i32.const 3) (i32.const 48) (i32.const 35)))
      (br $forever))))
