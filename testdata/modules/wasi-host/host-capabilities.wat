;; A Kubewarden WASI policy that asks the host through the WASI `host.call` import (the
;; Go SDK's `//go:wasmimport host call`): argv[1] `validate-settings` accepts any settings;
;; `validate` reads its request, then asks kubewarden/kubernetes/get_resource for the
;; ConfigMap prod/app-config and kubewarden/oci/v1/manifest_digest for nginx:latest, reading
;; each answer from stdin to its end, and denies with what it got:
;;   "<status> <answer>; <status> <answer>"  (status 0: answered, 1: refused)
(module
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "host" "call" (func $host_call (param i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 3)
  (data (i32.const 64) "kubewarden")
  (data (i32.const 80) "kubernetes")
  (data (i32.const 96) "get_resource")
  (data (i32.const 112) "{\"api_version\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"app-config\",\"namespace\":\"prod\"}")
  (data (i32.const 256) "oci")
  (data (i32.const 272) "v1/manifest_digest")
  (data (i32.const 304) "\"nginx:latest\"")
  (data (i32.const 320) "{\"valid\":true}")
  (data (i32.const 352) "{\"accepted\":false,\"message\":\"")
  (data (i32.const 400) "\"}; ")
  ;; Where the response is built (from 1024), and how long it is.
  (global $out (mut i32) (i32.const 1024))

  ;; Reads stdin to its end into page 1 (64 KiB at most); returns how much it read.
  (func $read_all (result i32)
    (local $total i32)
    (block $done
      (loop $more
        (i32.store (i32.const 16) (i32.add (i32.const 65536) (local.get $total)))
        (i32.store (i32.const 20) (i32.sub (i32.const 65536) (local.get $total)))
        (br_if $done (call $fd_read (i32.const 0) (i32.const 16) (i32.const 1) (i32.const 32)))
        (br_if $done (i32.eqz (i32.load (i32.const 32))))
        (local.set $total (i32.add (local.get $total) (i32.load (i32.const 32))))
        (br $more)))
    (local.get $total))

  (func $byte (param $b i32)
    (i32.store8 (global.get $out) (local.get $b))
    (global.set $out (i32.add (global.get $out) (i32.const 1))))

  ;; Appends `len` bytes at `at`; with `escape`, as the inside of a JSON string.
  (func $append (param $at i32) (param $len i32) (param $escape i32)
    (local $b i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $len)))
        (local.set $b (i32.load8_u (local.get $at)))
        (if (i32.and (local.get $escape)
                     (i32.or (i32.eq (local.get $b) (i32.const 34)) (i32.eq (local.get $b) (i32.const 92))))
          (then (call $byte (i32.const 92))))
        (call $byte (local.get $b))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (local.set $len (i32.sub (local.get $len) (i32.const 1)))
        (br $next))))

  ;; Appends "<status> <answer read from stdin>".
  (func $report (param $status i32)
    (call $byte (i32.add (i32.const 48) (local.get $status)))
    (call $byte (i32.const 32))
    (call $append (i32.const 65536) (call $read_all) (i32.const 1)))

  (func $write (param $at i32) (param $len i32)
    (i32.store (i32.const 16) (local.get $at))
    (i32.store (i32.const 20) (local.get $len))
    (drop (call $fd_write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 32))))

  (func (export "_start")
    (drop (call $args_sizes_get (i32.const 0) (i32.const 4)))
    ;; "policy.wasm\0validate-settings\0" is 30 bytes; "policy.wasm\0validate\0" 21.
    (if (i32.eq (i32.load (i32.const 4)) (i32.const 30))
      (then (call $write (i32.const 320) (i32.const 14)) (return)))
    (drop (call $read_all))
    (call $append (i32.const 352) (i32.const 29) (i32.const 0))
    (call $report (call $host_call (i32.const 64) (i32.const 10) (i32.const 80) (i32.const 10)
                                   (i32.const 96) (i32.const 12) (i32.const 112) (i32.const 78)))
    (call $append (i32.const 402) (i32.const 2) (i32.const 0))
    (call $report (call $host_call (i32.const 64) (i32.const 10) (i32.const 256) (i32.const 3)
                                   (i32.const 272) (i32.const 18) (i32.const 304) (i32.const 14)))
    (call $append (i32.const 400) (i32.const 2) (i32.const 0))
    (call $write (i32.const 1024) (i32.sub (global.get $out) (i32.const 1024)))))
