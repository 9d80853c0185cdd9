//! A Kubewarden waPC policy over 1,000 Pods: `kadmit transform` with the waPC test policy
//! (`testdata/modules/src/kubewarden_wapc_policy.rs`) as a validating `AdmissionModule`, as
//! a mutating one (its `addLabel` setting: every Pod changed), and, for comparison, the
//! Kubewarden WASI test policy validating, against pass-through on the same Pods. Every Pod
//! is one call (no `match`), and every waPC call makes one `tracing/log` host call. The
//! time per call is the difference from pass-through divided by 1,000. Also the waPC policy
//! called directly (compiled once, a fresh instance per call), without the pipeline. Run
//! with `cargo bench --bench wapc`; `KADMIT_BENCH_REPS` sets the repetitions (median
//! reported). Numbers only: nothing here asserts a time.

mod common;

use kadmit::run::{run, Mode, Options};
use kadmit::testing::module::capabilities::Host;
use kadmit::testing::module::limits::Limits;
use kadmit::testing::module::runtime::{engine, WasmModule};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

const PODS: usize = 1_000;

fn wasm(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/modules/wasm")
        .join(format!("{name}.wasm"))
}

/// 1,000 Pods on pinned images, in 10 namespaces.
fn pods() -> String {
    (0..PODS)
        .map(|i| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-{i}\n  namespace: team-{}\n  labels:\n    app: web\nspec:\n  containers:\n  - name: web\n    image: nginx:1.27.{}\n    ports:\n    - containerPort: 8080\n",
                i % 10,
                i % 7
            )
        })
        .collect::<Vec<_>>()
        .join("---\n")
}

/// A configuration directory with one module and its spec lines.
fn config(module: &str, spec: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(wasm(module), dir.path().join("policy.wasm")).expect("module copied");
    let yaml = format!(
        "apiVersion: kadmit.dev/v1alpha1\nkind: AdmissionModule\nmetadata:\n  name: bench\nspec:\n  module: policy.wasm\n{spec}"
    );
    std::fs::write(dir.path().join("modules.yaml"), yaml).expect("config written");
    dir
}

/// The median wall and CPU time of `reps` runs of `kadmit transform` on `input`.
fn measure(input: &str, config: Option<&Path>, reps: usize) -> (Duration, Duration, usize) {
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    let mut changed = 0;
    for _ in 0..reps {
        let mut options = Options::new(Mode::Transform);
        options.config_paths = config.map(Path::to_path_buf).into_iter().collect();
        let cpu_before = common::cpu_time();
        let started = Instant::now();
        let outcome = run(options, input.as_bytes());
        walls.push(started.elapsed().as_secs_f64());
        if let (Some(before), Some(after)) = (cpu_before, common::cpu_time()) {
            cpus.push((after - before).as_secs_f64());
        }
        assert_eq!(outcome.exit_code, 0, "{:?}", outcome.diagnostics.first());
        changed = outcome.changes.len();
    }
    let cpu = if cpus.is_empty() {
        0.0
    } else {
        common::median(cpus)
    };
    (
        Duration::from_secs_f64(common::median(walls)),
        Duration::from_secs_f64(cpu),
        changed,
    )
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let reps: usize = std::env::var("KADMIT_BENCH_REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let input = pods();
    println!("{PODS} Pods ({} bytes), median of {reps}", input.len());
    println!(
        "{:<40} {:>9} {:>9} {:>12} {:>8}",
        "run", "wall ms", "cpu ms", "per call µs", "changed"
    );
    let (base_wall, base_cpu, _) = measure(&input, None, reps);
    println!(
        "{:<40} {:>9.1} {:>9.1} {:>12} {:>8}",
        "pass-through",
        base_wall.as_secs_f64() * 1e3,
        base_cpu.as_secs_f64() * 1e3,
        "-",
        0
    );
    let cases = [
        (
            "waPC validating (kubewarden-wapc-policy)",
            "kubewarden-wapc-policy",
            "  protocol: kubewarden-wapc\n",
        ),
        (
            "waPC mutating (addLabel)",
            "kubewarden-wapc-policy",
            "  protocol: kubewarden-wapc\n  mutating: true\n  settings:\n    addLabel: {key: team, value: web}\n",
        ),
        (
            "WASI validating (kubewarden-policy)",
            "kubewarden-policy",
            "  protocol: kubewarden-wasi\n",
        ),
    ];
    for (label, module, spec) in cases {
        let dir = config(module, spec);
        let (wall, cpu, changed) = measure(&input, Some(dir.path()), reps);
        let per_call = (wall.as_secs_f64() - base_wall.as_secs_f64()) / PODS as f64;
        println!(
            "{:<40} {:>9.1} {:>9.1} {:>12.0} {:>8}",
            label,
            wall.as_secs_f64() * 1e3,
            cpu.as_secs_f64() * 1e3,
            per_call * 1e6,
            changed
        );
    }
    let bytes = std::fs::read(wasm("kubewarden-wapc-policy")).expect("module read");
    let compiled = Instant::now();
    let module = WasmModule::compile(&engine(), &bytes).expect("module compiles");
    let compile = compiled.elapsed();
    let payload = br#"{"request":{"uid":"u","kind":{"group":"","version":"v1","kind":"Pod"},"name":"web","namespace":"prod","operation":"CREATE","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"prod"},"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}},"settings":{}}"#;
    let host = Arc::new(Host::default());
    let started = Instant::now();
    for _ in 0..PODS {
        module
            .call_wapc(
                "validate",
                payload.to_vec(),
                Arc::clone(&host),
                Limits::default(),
            )
            .expect("the policy answers");
    }
    println!(
        "direct waPC call: compile {:.1} ms once, then {:.0} µs per instantiate + call",
        compile.as_secs_f64() * 1e3,
        started.elapsed().as_secs_f64() * 1e6 / PODS as f64
    );
}
