//! WebAssembly admission modules over the generated corpus: `kadmit transform` on 1,000
//! resources with one validating module (`magic-validator`), one mutating module
//! (`magic-mutator`), and both, against pass-through on the same resources; every resource
//! is one call of each module (no `match`). The time per call is the difference from
//! pass-through divided by the calls. Also one module called directly (compiled once, a
//! fresh instance per call), without the pipeline around it. Run with
//! `cargo bench --bench modules`; `KADMIT_BENCH_REPS` sets the repetitions (median
//! reported). Numbers only: nothing here asserts a time.

mod common;

use kadmit::run::{run, Mode, Options};
use kadmit::testing::module::limits::Limits;
use kadmit::testing::module::runtime::{engine, WasmModule};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const RESOURCES: usize = 1_000;

fn testdata(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/modules")
        .join(relative)
}

/// A configuration directory with the given modules, each `(name, mutating)`.
fn config(modules: &[(&str, bool)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut yaml = String::new();
    for (name, mutating) in modules {
        std::fs::copy(
            testdata(&format!("wasm/{name}.wasm")),
            dir.path().join(format!("{name}.wasm")),
        )
        .expect("module copied");
        yaml.push_str(&format!(
            "apiVersion: kadmit.dev/v1alpha1\nkind: AdmissionModule\nmetadata:\n  name: {name}\nspec:\n  module: {name}.wasm\n  mutating: {mutating}\n---\n"
        ));
    }
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

/// The first `count` documents of the corpus.
fn first_documents(corpus: &str, count: usize) -> String {
    let mut out = String::new();
    for (i, document) in corpus.split("\n---\n").enumerate().take(count) {
        if i > 0 {
            out.push_str("\n---\n");
        }
        out.push_str(document);
    }
    out.push('\n');
    out
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let reps: usize = std::env::var("KADMIT_BENCH_REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let corpus = common::corpus(&common::corpus_dir(), 10_000);
    let input = first_documents(&corpus, RESOURCES);
    println!(
        "{RESOURCES} resources ({} bytes), median of {reps}",
        input.len()
    );
    let (base_wall, base_cpu, _) = measure(&input, None, reps);
    println!(
        "{:<34} {:>9} {:>9} {:>14} {:>8}",
        "run", "wall ms", "cpu ms", "per call µs", "changed"
    );
    println!(
        "{:<34} {:>9.1} {:>9.1} {:>14} {:>8}",
        "pass-through",
        base_wall.as_secs_f64() * 1e3,
        base_cpu.as_secs_f64() * 1e3,
        "-",
        0
    );
    let cases: [(&str, &[(&str, bool)]); 3] = [
        (
            "validating (magic-validator)",
            &[("magic-validator", false)],
        ),
        ("mutating (magic-mutator)", &[("magic-mutator", true)]),
        (
            "both",
            &[("magic-mutator", true), ("magic-validator", false)],
        ),
    ];
    for (label, modules) in cases {
        let dir = config(modules);
        let (wall, cpu, changed) = measure(&input, Some(dir.path()), reps);
        let calls = (RESOURCES * modules.len()) as f64;
        let per_call = wall.saturating_sub(base_wall).as_secs_f64() / calls;
        println!(
            "{:<34} {:>9.1} {:>9.1} {:>14.1} {:>8}",
            label,
            wall.as_secs_f64() * 1e3,
            cpu.as_secs_f64() * 1e3,
            per_call * 1e6,
            changed
        );
    }
    direct_calls(reps);
}

/// One module, compiled once, called on the specification's request `CALLS` times.
fn direct_calls(reps: usize) {
    const CALLS: u32 = 1_000;
    let bytes = std::fs::read(testdata("wasm/magic-validator.wasm")).expect("module read");
    let started = Instant::now();
    let module = WasmModule::compile(&engine(), &bytes).expect("module compiles");
    let compile = started.elapsed();
    let review: serde_json::Value = serde_json::from_slice(
        &std::fs::read(testdata("requests/configmap-not-allowed.json")).expect("request read"),
    )
    .expect("request is JSON");
    let stdin = serde_json::to_vec(&serde_json::json!({ "request": review })).expect("serializes");
    let mut per_call = Vec::new();
    for _ in 0..reps {
        let started = Instant::now();
        for _ in 0..CALLS {
            module
                .call("validate", &[], stdin.clone(), Limits::default())
                .expect("the module answers");
        }
        per_call.push(started.elapsed().as_secs_f64() / f64::from(CALLS));
    }
    println!(
        "direct: magic-validator compiled in {:.1} ms; {CALLS} calls, {:.1} µs per call (instantiate + call)",
        compile.as_secs_f64() * 1e3,
        common::median(per_call) * 1e6
    );
}
