//! The runtime and its sandbox, on small modules written in WAT.

use super::limits::Limits;
use super::outcome::Failure;
use super::runtime::{engine, WasmModule};
use std::time::{Duration, Instant};

const IMPORTS: &str = r#"
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
"#;

/// Reads up to 60000 bytes of stdin to 1024 and writes them to stdout.
const ECHO: &str = r#"
  (func $echo
    (i32.store (i32.const 0) (i32.const 1024))
    (i32.store (i32.const 4) (i32.const 60000))
    (drop (call $fd_read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
    (i32.store (i32.const 4) (i32.load (i32.const 8)))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
"#;

fn module(body: &str) -> WasmModule {
    let text = format!("(module {IMPORTS} (memory (export \"memory\") 1) {ECHO} {body})");
    let bytes = wat::parse_str(&text).expect("the test module is valid WAT");
    WasmModule::compile(&engine(), &bytes).expect("the test module compiles")
}

fn limits(timeout_ms: u64, memory: u64) -> Limits {
    Limits {
        timeout: Duration::from_millis(timeout_ms),
        memory,
    }
}

#[test]
fn a_call_reads_stdin_and_writes_stdout() {
    let m = module(r#"(func (export "validate") (call $echo))"#);
    assert!(m.exports_function("validate"));
    assert!(!m.exports_function("authn"));
    let out = m
        .call(
            "validate",
            &[],
            b"{\"request\":{}}".to_vec(),
            Limits::default(),
        )
        .unwrap();
    assert_eq!(out.stdout, b"{\"request\":{}}");
}

#[test]
fn every_call_gets_a_fresh_instance() {
    // Counts calls in a global and writes the count: a reused instance would say 2.
    let m = module(
        r#"(global $calls (mut i32) (i32.const 0))
           (func (export "validate")
             (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
             (i32.store8 (i32.const 1024) (i32.add (i32.const 48) (global.get $calls)))
             (i32.store (i32.const 0) (i32.const 1024))
             (i32.store (i32.const 4) (i32.const 1))
             (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))"#,
    );
    for _ in 0..2 {
        assert_eq!(
            m.call("validate", &[], Vec::new(), Limits::default())
                .unwrap()
                .stdout,
            b"1"
        );
    }
}

#[test]
fn initialize_runs_before_the_use_case() {
    // validate echoes only after _initialize has set the flag; else it traps.
    let m = module(
        r#"(global $ready (mut i32) (i32.const 0))
           (func (export "_initialize") (global.set $ready (i32.const 1)))
           (func (export "validate")
             (if (i32.eqz (global.get $ready)) (then unreachable))
             (call $echo))"#,
    );
    let out = m
        .call("validate", &[], b"ok".to_vec(), Limits::default())
        .unwrap();
    assert_eq!(out.stdout, b"ok");
}

#[test]
fn a_loop_is_stopped_at_the_timeout() {
    let m = module(r#"(func (export "validate") (loop $forever (br $forever)))"#);
    let started = Instant::now();
    let result = m.call("validate", &[], Vec::new(), limits(200, 64 << 20));
    assert_eq!(
        result.unwrap_err(),
        Failure::Timeout(Duration::from_millis(200))
    );
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(200),
        "stopped early: {took:?}"
    );
    assert!(took < Duration::from_secs(5), "stopped late: {took:?}");
}

#[test]
fn memory_cannot_grow_past_the_limit() {
    let m = module(
        r#"(func (export "validate")
             (loop $more (br_if $more (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
             (call $echo))"#,
    );
    let result = m.call("validate", &[], Vec::new(), limits(5000, 4 << 20));
    assert_eq!(result.unwrap_err(), Failure::MemoryLimit(4 << 20));
}

#[test]
fn initial_memory_counts_too() {
    let bytes =
        wat::parse_str(r#"(module (memory (export "memory") 200) (func (export "validate")))"#)
            .unwrap();
    let m = WasmModule::compile(&engine(), &bytes).unwrap();
    let result = m.call("validate", &[], Vec::new(), limits(1000, 1 << 20));
    assert_eq!(result.unwrap_err(), Failure::MemoryLimit(1 << 20));
    assert!(m
        .call("validate", &[], Vec::new(), limits(1000, 16 << 20))
        .is_ok());
}

#[test]
fn traps_and_exits_are_told_apart() {
    let m = module(
        r#"(func (export "validate") unreachable)
           (func (export "authn") (call $echo) (call $proc_exit (i32.const 3)))
           (func (export "authz") (call $echo) (call $proc_exit (i32.const 0)) unreachable)"#,
    );
    let Err(Failure::Trap(trap, _)) = m.call("validate", &[], Vec::new(), Limits::default()) else {
        panic!("expected a trap")
    };
    assert!(trap.contains("unreachable"), "{trap}");
    assert_eq!(
        m.call("authn", &[], Vec::new(), Limits::default())
            .unwrap_err(),
        Failure::Exit(3, String::new())
    );
    let out = m
        .call("authz", &[], b"done".to_vec(), Limits::default())
        .unwrap();
    assert_eq!(out.stdout, b"done", "proc_exit(0) is a success");
}

#[test]
fn stderr_is_kept_for_messages() {
    let m = module(
        r#"(data (i32.const 2048) "oops")
           (func (export "validate")
             (i32.store (i32.const 0) (i32.const 2048))
             (i32.store (i32.const 4) (i32.const 4))
             (drop (call $fd_write (i32.const 2) (i32.const 0) (i32.const 1) (i32.const 8)))
             unreachable)"#,
    );
    let Err(Failure::Trap(_, stderr)) = m.call("validate", &[], Vec::new(), Limits::default())
    else {
        panic!("expected a trap")
    };
    assert_eq!(stderr, "oops");
}

#[test]
fn only_wasi_is_provided() {
    let bytes =
        wat::parse_str(r#"(module (import "env" "socket" (func)) (func (export "validate")))"#)
            .unwrap();
    let error = WasmModule::compile(&engine(), &bytes)
        .err()
        .expect("refused");
    assert_eq!(
        error,
        "the module imports env.socket, which kadmit does not provide (kadmit provides the functions of wasi_snapshot_preview1 and wapc); it looks like a k8s-wasi module (spec.protocol: k8s-wasi)"
    );
    let error = WasmModule::compile(&engine(), b"not wasm")
        .err()
        .expect("refused");
    assert!(
        error.starts_with("not a valid WebAssembly module"),
        "{error}"
    );
}

/// Calls `probe` (WAT returning an i64 from the WASI calls it makes) and returns the value.
fn probe(imports: &str, body: &str, args: &[&str]) -> i64 {
    let text = format!(
        r#"(module {imports} {IMPORTS} (memory (export "memory") 1) {ECHO}
             (func $probe (result i64) {body})
             (func (export "validate")
               (i64.store (i32.const 1024) (call $probe))
               (i32.store (i32.const 0) (i32.const 1024))
               (i32.store (i32.const 4) (i32.const 8))
               (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))"#
    );
    let bytes = wat::parse_str(&text).expect("valid WAT");
    let m = WasmModule::compile(&engine(), &bytes).expect("compiles");
    let out = m
        .call("validate", args, Vec::new(), Limits::default())
        .expect("runs");
    i64::from_le_bytes(out.stdout.try_into().expect("8 bytes"))
}

#[test]
fn the_sandbox_offers_no_files_environment_or_arguments() {
    let wasi = |name: &str, ty: &str| {
        format!(r#"(import "wasi_snapshot_preview1" "{name}" (func ${name} {ty}))"#)
    };
    let args = wasi("args_sizes_get", "(param i32 i32) (result i32)");
    let count_args = "(drop (call $args_sizes_get (i32.const 16) (i32.const 20))) (i64.extend_i32_u (i32.load (i32.const 16)))";
    assert_eq!(probe(&args, count_args, &[]), 0);
    assert_eq!(probe(&args, count_args, &["policy.wasm", "validate"]), 2);
    let environ = wasi("environ_sizes_get", "(param i32 i32) (result i32)");
    assert_eq!(
        probe(&environ, "(drop (call $environ_sizes_get (i32.const 16) (i32.const 20))) (i64.extend_i32_u (i32.load (i32.const 16)))", &[]),
        0
    );
    let prestat = wasi("fd_prestat_get", "(param i32 i32) (result i32)");
    assert_eq!(
        probe(
            &prestat,
            "(i64.extend_i32_u (call $fd_prestat_get (i32.const 3) (i32.const 16)))",
            &[]
        ),
        8,
        "EBADF"
    );
    let open = wasi(
        "path_open",
        "(param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)",
    );
    let open_call = "(i64.extend_i32_u (call $path_open (i32.const 3) (i32.const 0) (i32.const 2048) (i32.const 4) (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 16)))";
    assert_eq!(probe(&open, open_call, &[]), 8, "EBADF");
    let socket = wasi("sock_accept", "(param i32 i32 i32) (result i32)");
    assert_eq!(
        probe(
            &socket,
            "(i64.extend_i32_u (call $sock_accept (i32.const 3) (i32.const 0) (i32.const 16)))",
            &[]
        ),
        8
    );
    let poll = wasi("poll_oneoff", "(param i32 i32 i32 i32) (result i32)");
    assert_eq!(probe(&poll, "(i64.extend_i32_u (call $poll_oneoff (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 16)))", &[]), 52, "ENOSYS");
}

#[test]
fn clocks_and_randomness_are_the_same_every_run() {
    let clock = r#"(import "wasi_snapshot_preview1" "clock_time_get" (func $clock_time_get (param i32 i64 i32) (result i32)))"#;
    assert_eq!(probe(clock, "(drop (call $clock_time_get (i32.const 0) (i64.const 1) (i32.const 16))) (i64.load (i32.const 16))", &[]), 0);
    let random = r#"(import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))"#;
    let draw = "(drop (call $random_get (i32.const 16) (i32.const 8))) (i64.load (i32.const 16))";
    let first = probe(random, draw, &[]);
    assert_ne!(first, 0);
    assert_eq!(first, probe(random, draw, &[]));
}

#[test]
fn grow_loops_run_to_their_end() {
    // Under wasmi's tail-call dispatch each executed memory.grow or table.grow left a native
    // stack frame behind: these loops aborted the process (stack overflow).
    let cases = [
        // past the declared maximum: each answers -1
        r#"(memory (export "memory") 1 1)
           (func (export "validate") (local $i i32)
             (loop $l
               (drop (memory.grow (i32.const 1)))
               (local.set $i (i32.add (local.get $i) (i32.const 1)))
               (br_if $l (i32.lt_u (local.get $i) (i32.const 2000000)))))"#,
        // past kadmit's table cap: each answers -1
        r#"(memory (export "memory") 1) (table $t 1 funcref)
           (func (export "validate") (local $i i32)
             (loop $l
               (drop (table.grow $t (ref.null func) (i32.const 2000000)))
               (local.set $i (i32.add (local.get $i) (i32.const 1)))
               (br_if $l (i32.lt_u (local.get $i) (i32.const 1000000)))))"#,
        // succeeding, one element at a time
        r#"(memory (export "memory") 1) (table $t 1 funcref)
           (func (export "validate") (local $i i32)
             (loop $l
               (drop (table.grow $t (ref.null func) (i32.const 1)))
               (local.set $i (i32.add (local.get $i) (i32.const 1)))
               (br_if $l (i32.lt_u (local.get $i) (i32.const 1000000)))))"#,
    ];
    for body in cases {
        let bytes = wat::parse_str(format!("(module {body})")).unwrap();
        let m = WasmModule::compile(&engine(), &bytes).unwrap();
        let out = m.call("validate", &[], Vec::new(), limits(20_000, 64 << 20));
        assert_eq!(out, Ok(Default::default()), "{body}");
    }
}

#[test]
fn iovec_lists_are_bounded() {
    // fd_write to stderr with `count` iovecs of 1 byte at 2048: the errno.
    let write = |count: i32| {
        probe(
            "",
            &format!(
                r#"(local $i i32)
                   (loop $l
                     (i32.store (i32.add (i32.const 4096) (i32.mul (local.get $i) (i32.const 8))) (i32.const 2048))
                     (i32.store (i32.add (i32.const 4100) (i32.mul (local.get $i) (i32.const 8))) (i32.const 1))
                     (local.set $i (i32.add (local.get $i) (i32.const 1)))
                     (br_if $l (i32.lt_u (local.get $i) (i32.const 1100))))
                   (i64.extend_i32_u (call $fd_write (i32.const 2) (i32.const 4096) (i32.const {count}) (i32.const 16)))"#
            ),
            &[],
        )
    };
    assert_eq!(write(1024), 0, "MAX_IOVECS buffers are fine");
    assert_eq!(write(1025), 28, "EINVAL past MAX_IOVECS");
    assert_eq!(write(-1), 28, "EINVAL for a negative count");
    let read = probe(
        "",
        "(i64.extend_i32_u (call $fd_read (i32.const 0) (i32.const 4096) (i32.const 1000000) (i32.const 16)))",
        &[],
    );
    assert_eq!(read, 28, "fd_read too");
}

#[test]
fn random_get_is_the_same_sequence_across_its_chunks() {
    // 65536 bytes then 8 in one call, or 65544 at once: the same 8 bytes at 65536 (the
    // generator's 8193rd draw), though the large call fills its buffer chunk by chunk.
    let random = r#"(import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))"#;
    let text = |body: &str| {
        format!(
            r#"(module {random} {IMPORTS} (memory (export "memory") 4) {ECHO}
             (func (export "validate")
               {body}
               (i32.store (i32.const 0) (i32.const 65536))
               (i32.store (i32.const 4) (i32.const 8))
               (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))"#
        )
    };
    let run = |body: &str| {
        let bytes = wat::parse_str(text(body)).unwrap();
        let m = WasmModule::compile(&engine(), &bytes).unwrap();
        m.call("validate", &[], Vec::new(), Limits::default())
            .unwrap()
            .stdout
    };
    let at_once = run("(drop (call $random_get (i32.const 0) (i32.const 65544)))");
    let in_two = run("(drop (call $random_get (i32.const 0) (i32.const 65536)))
         (drop (call $random_get (i32.const 65536) (i32.const 8)))");
    assert_eq!(at_once.len(), 8);
    assert_eq!(at_once, in_two);
}

/// A module asking the host through `host.call` (binding at 64, namespace "kubernetes" at
/// 96, operation "can_i" at 112) whose stdout is the status digit and then what stdin
/// holds after the call.
fn asks_host(binding: &str) -> WasmModule {
    let text = format!(
        r#"(module
             (import "host" "call" (func $host_call (param i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
             {IMPORTS}
             (memory (export "memory") 1)
             (data (i32.const 64) "{binding}")
             (data (i32.const 96) "kubernetes")
             (data (i32.const 112) "can_i")
             (data (i32.const 128) "{{}}")
             {ECHO}
             (func (export "_start")
               (i32.store8 (i32.const 900)
                 (i32.add (i32.const 48)
                   (call $host_call (i32.const 64) (i32.const {len}) (i32.const 96) (i32.const 10)
                                    (i32.const 112) (i32.const 5) (i32.const 128) (i32.const 2))))
               (i32.store (i32.const 0) (i32.const 900))
               (i32.store (i32.const 4) (i32.const 1))
               (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
               (call $echo)))"#,
        len = binding.len()
    );
    let bytes = wat::parse_str(&text).expect("the test module is valid WAT");
    WasmModule::compile(&engine(), &bytes).expect("the test module compiles")
}

#[test]
fn host_call_answers_on_stdin_in_place_of_what_was_left() {
    let host = std::sync::Arc::new(super::capabilities::Host::default());
    let call = |m: WasmModule| {
        let out = m
            .call_with_host(
                "_start",
                &[],
                b"the unread request".to_vec(),
                host.clone(),
                Limits::default(),
            )
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let answered = call(asks_host("kubewarden"));
    assert!(
        answered.starts_with("0{\"allowed\":false,\"denied\":false,"),
        "{answered}"
    );
    assert_eq!(
        call(asks_host("elsewhere")),
        "1unknown host-call binding \"elsewhere\": kadmit answers only the \"kubewarden\" binding"
    );
}

#[test]
fn the_host_module_offers_only_call() {
    let text = r#"(module (import "host" "callback" (func)) (func (export "_start")))"#;
    let bytes = wat::parse_str(text).unwrap();
    let Err(error) = WasmModule::compile(&engine(), &bytes) else {
        panic!("host.callback is not provided");
    };
    assert!(
        error.contains(
            "the module imports host.callback, which is not a Kubewarden host function (kadmit provides host.call)"
        ),
        "{error}"
    );
}
