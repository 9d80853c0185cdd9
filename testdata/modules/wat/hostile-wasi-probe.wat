;; Sandbox probe (k8s-wasi, export `validate`): calls WASI functions a
;; sandboxed module should get nothing from, and answers an *allowed*
;; AdmissionReview (uid copied from the request) whose status.message is a
;; JSON report of what each call returned:
;;
;;   {"args_sizes_get":{"errno":E,"argc":N,"bytes":N},
;;    "environ_sizes_get":{"errno":E,"count":N,"bytes":N},
;;    "fd_prestat_get":{"fd":3,"errno":E},
;;    "path_open":{"fd":3,"path":"etc/passwd","errno":E},
;;    "clock_time_get":{"realtime":{"errno":E,"ns":T},"monotonic":{"errno":E,"ns":T}},
;;    "random_get":{"errno":E,"first_u64":R}}
;;
;; A sandboxed host shows argc 0, environ count 0, and errno 8 (EBADF) for
;; fd_prestat_get(3) and path_open on fd 3 (no preopened directory).
;;
;; Memory map: 0..64 WASI results and iovecs; 256..288 digits scratch;
;; 1024..3200 NUL-terminated text (128-byte slots); 8192..16384 output;
;; 16384.. stdin (memory grows as needed).
(module
  (import "wasi_snapshot_preview1" "fd_read"
    (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get"
    (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get"
    (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_get"
    (func $fd_prestat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get"
    (func $clock_time_get (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get"
    (func $random_get (param i32 i32) (result i32)))
  (memory (export "memory") 1)

  (global $out (mut i32) (i32.const 8192))
  (global $in_end (mut i32) (i32.const 16384))
  (global $uid_len (mut i32) (i32.const 0))

  ;; Copied as they are.
  (data (i32.const 1024) "{\"response\":{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1\",\"response\":{\"uid\":\"\00")
  (data (i32.const 1152) "\",\"allowed\":true,\"status\":{\"message\":\"\00")
  (data (i32.const 1280) "\"}}},\"error\":null}\n\00")
  ;; Pieces of the report, escaped into the message string.
  (data (i32.const 1408) "{\"args_sizes_get\":{\"errno\":\00")
  (data (i32.const 1536) ",\"argc\":\00")
  (data (i32.const 1664) ",\"bytes\":\00")
  (data (i32.const 1792) "},\"environ_sizes_get\":{\"errno\":\00")
  (data (i32.const 1920) ",\"count\":\00")
  (data (i32.const 2048) "},\"fd_prestat_get\":{\"fd\":3,\"errno\":\00")
  (data (i32.const 2176) "},\"path_open\":{\"fd\":3,\"path\":\"etc/passwd\",\"errno\":\00")
  (data (i32.const 2304) "},\"clock_time_get\":{\"realtime\":{\"errno\":\00")
  (data (i32.const 2432) ",\"ns\":\00")
  (data (i32.const 2560) "},\"monotonic\":{\"errno\":\00")
  (data (i32.const 2688) "}},\"random_get\":{\"errno\":\00")
  (data (i32.const 2816) ",\"first_u64\":\00")
  (data (i32.const 2944) "}}\00")
  ;; The path handed to path_open (10 bytes).
  (data (i32.const 3072) "etc/passwd")

  (func (export "validate")
    (local $uid i32)
    (call $read_stdin)
    (local.set $uid (call $find_uid))
    (call $raw (i32.const 1024))
    (call $bytes (local.get $uid) (global.get $uid_len))
    (call $raw (i32.const 1152))

    (call $msg (i32.const 1408))
    (call $num32 (call $args_sizes_get (i32.const 16) (i32.const 20)))
    (call $msg (i32.const 1536))
    (call $num32 (i32.load (i32.const 16)))
    (call $msg (i32.const 1664))
    (call $num32 (i32.load (i32.const 20)))

    (call $msg (i32.const 1792))
    (call $num32 (call $environ_sizes_get (i32.const 24) (i32.const 28)))
    (call $msg (i32.const 1920))
    (call $num32 (i32.load (i32.const 24)))
    (call $msg (i32.const 1664))
    (call $num32 (i32.load (i32.const 28)))

    (call $msg (i32.const 2048))
    (call $num32 (call $fd_prestat_get (i32.const 3) (i32.const 64)))

    (call $msg (i32.const 2176))
    ;; dirflags: follow symlinks; rights: fd_read; result fd at 32.
    (call $num32 (call $path_open (i32.const 3) (i32.const 1) (i32.const 3072) (i32.const 10)
      (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 32)))

    (call $msg (i32.const 2304))
    (call $num32 (call $clock_time_get (i32.const 0) (i64.const 1) (i32.const 40)))
    (call $msg (i32.const 2432))
    (call $num (i64.load (i32.const 40)))
    (call $msg (i32.const 2560))
    (call $num32 (call $clock_time_get (i32.const 1) (i64.const 1) (i32.const 48)))
    (call $msg (i32.const 2432))
    (call $num (i64.load (i32.const 48)))

    (call $msg (i32.const 2688))
    (call $num32 (call $random_get (i32.const 56) (i32.const 8)))
    (call $msg (i32.const 2816))
    (call $num (i64.load (i32.const 56)))
    (call $msg (i32.const 2944))

    (call $raw (i32.const 1280))
    ;; iovec at 0: {8192, length}; bytes written at 8.
    (i32.store (i32.const 0) (i32.const 8192))
    (i32.store (i32.const 4) (i32.sub (global.get $out) (i32.const 8192)))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))

  ;; All of stdin to 16384.., growing memory to keep 4 KiB free.
  (func $read_stdin
    (local $n i32)
    (loop $more
      (if (i32.gt_u (i32.add (global.get $in_end) (i32.const 4096))
                    (i32.mul (memory.size) (i32.const 65536)))
        (then
          (if (i32.eq (memory.grow (i32.const 1)) (i32.const -1))
            (then unreachable))))
      (i32.store (i32.const 0) (global.get $in_end))
      (i32.store (i32.const 4) (i32.const 4096))
      (if (i32.eqz (call $fd_read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
        (then
          (local.set $n (i32.load (i32.const 8)))
          (global.set $in_end (i32.add (global.get $in_end) (local.get $n)))
          (br_if $more (local.get $n))))))

  ;; The input byte at $p, or -1 past the end.
  (func $byte (param $p i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $p) (global.get $in_end))
      (then (i32.load8_u (local.get $p)))
      (else (i32.const -1))))

  (func $skip_ws (param $p i32) (result i32)
    (local $c i32)
    (loop $next
      (local.set $c (call $byte (local.get $p)))
      (if (i32.or (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 9)))
                  (i32.or (i32.eq (local.get $c) (i32.const 10)) (i32.eq (local.get $c) (i32.const 13))))
        (then
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (br $next))))
    (local.get $p))

  ;; $p is at an opening quote: the position after the closing one.
  (func $skip_string (param $p i32) (result i32)
    (local $c i32)
    (local.set $p (i32.add (local.get $p) (i32.const 1)))
    (loop $next
      (local.set $c (call $byte (local.get $p)))
      (if (i32.eq (local.get $c) (i32.const -1)) (then (return (local.get $p))))
      (if (i32.eq (local.get $c) (i32.const 34)) (then (return (i32.add (local.get $p) (i32.const 1)))))
      (local.set $p (i32.add (local.get $p)
        (select (i32.const 2) (i32.const 1) (i32.eq (local.get $c) (i32.const 92)))))
      (br $next))
    (local.get $p))

  ;; The request's uid: the string value of a key "uid" at nesting depth 3,
  ;; i.e. {"request": {"request": {"uid": …}}}. Returns its first byte and
  ;; sets $uid_len (0 when there is none).
  (func $find_uid (result i32)
    (local $p i32) (local $c i32) (local $depth i32) (local $value i32)
    (local.set $p (i32.const 16384))
    (block $done
      (loop $scan
        (local.set $c (call $byte (local.get $p)))
        (br_if $done (i32.eq (local.get $c) (i32.const -1)))
        (if (i32.eq (local.get $c) (i32.const 34))
          (then
            (if (i32.eq (local.get $depth) (i32.const 3))
              (then
                (local.set $value (call $uid_value_at (local.get $p)))
                (if (local.get $value) (then (return (local.get $value))))))
            (local.set $p (call $skip_string (local.get $p)))
            (br $scan)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 123)) (i32.eq (local.get $c) (i32.const 91)))
          (then (local.set $depth (i32.add (local.get $depth) (i32.const 1)))))
        (if (i32.or (i32.eq (local.get $c) (i32.const 125)) (i32.eq (local.get $c) (i32.const 93)))
          (then (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $scan)))
    (global.set $uid_len (i32.const 0))
    (i32.const 16384))

  ;; If the string at $p is the key "uid" followed by a string value:
  ;; that value's first byte (and $uid_len); else 0.
  (func $uid_value_at (param $p i32) (result i32)
    (local $start i32) (local $len i32)
    (if (i32.gt_u (i32.add (local.get $p) (i32.const 5)) (global.get $in_end))
      (then (return (i32.const 0))))
    ;; The bytes u i d " read as a little-endian i32.
    (if (i32.ne (i32.load (i32.add (local.get $p) (i32.const 1))) (i32.const 0x22646975))
      (then (return (i32.const 0))))
    (local.set $p (call $skip_ws (i32.add (local.get $p) (i32.const 5))))
    (if (i32.ne (call $byte (local.get $p)) (i32.const 58)) (then (return (i32.const 0))))
    (local.set $p (call $skip_ws (i32.add (local.get $p) (i32.const 1))))
    (if (i32.ne (call $byte (local.get $p)) (i32.const 34)) (then (return (i32.const 0))))
    (local.set $start (i32.add (local.get $p) (i32.const 1)))
    ;; Length without the quotes; an unterminated string counts to the end.
    (local.set $len (i32.sub (call $skip_string (local.get $p)) (local.get $start)))
    (if (i32.and (i32.gt_s (local.get $len) (i32.const 0))
                 (i32.eq (call $byte (i32.add (local.get $start) (i32.sub (local.get $len) (i32.const 1)))) (i32.const 34)))
      (then (local.set $len (i32.sub (local.get $len) (i32.const 1)))))
    (global.set $uid_len (local.get $len))
    (local.get $start))

  ;; Appends one byte to the output; beyond 16383 bytes are dropped.
  (func $put (param $b i32)
    (if (i32.lt_u (global.get $out) (i32.const 16384))
      (then
        (i32.store8 (global.get $out) (local.get $b))
        (global.set $out (i32.add (global.get $out) (i32.const 1))))))

  (func $bytes (param $p i32) (param $len i32)
    (block $done
      (loop $next
        (br_if $done (i32.le_s (local.get $len) (i32.const 0)))
        (call $put (i32.load8_u (local.get $p)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (local.set $len (i32.sub (local.get $len) (i32.const 1)))
        (br $next))))

  ;; Appends the NUL-terminated text at $p.
  (func $raw (param $p i32)
    (local $c i32)
    (loop $next
      (local.set $c (i32.load8_u (local.get $p)))
      (if (local.get $c)
        (then
          (call $put (local.get $c))
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (br $next)))))

  ;; Appends the NUL-terminated text at $p inside a JSON string:
  ;; `"` and `\` get a backslash.
  (func $msg (param $p i32)
    (local $c i32)
    (loop $next
      (local.set $c (i32.load8_u (local.get $p)))
      (if (local.get $c)
        (then
          (if (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 92)))
            (then (call $put (i32.const 92))))
          (call $put (local.get $c))
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (br $next)))))

  (func $num32 (param $v i32)
    (call $num (i64.extend_i32_u (local.get $v))))

  ;; Appends $v in decimal (unsigned), digits built backwards at 256..288.
  (func $num (param $v i64)
    (local $p i32)
    (local.set $p (i32.const 288))
    (loop $digit
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (i32.store8 (local.get $p)
        (i32.add (i32.const 48) (i32.wrap_i64 (i64.rem_u (local.get $v) (i64.const 10)))))
      (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
      (br_if $digit (i64.ne (local.get $v) (i64.const 0))))
    (call $bytes (local.get $p) (i32.sub (i32.const 288) (local.get $p)))))
