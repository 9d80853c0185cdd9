//! Generators: `kadmit generate --plugin-dir plugins` on 1,000 CommonApp virtual resources
//! (plugins/team.example.com/commonapp: schema defaults and a CEL rule, then four Tera
//! templates), against pass-through `kadmit transform` of what they generate (the same
//! 3,500 resources read and written, nothing generated), so that the cost of generating is
//! seen apart from the cost of reading and writing the stream.
//!
//! The CommonApps are made here, deterministically: 20 namespaces, the three sizes in turn,
//! a host (so an Ingress) on every other one, env on every fourth, a replica override on
//! some medium and big ones, a few custom ports. Before timing, one run checks that every
//! one is generated (exit 0, no diagnostics, 1,000 Deployments, Services and
//! PodDisruptionBudgets, 500 Ingresses).
//!
//! Run with `cargo bench --bench generators`; `KADMIT_BENCH_REPS` sets the repetitions (the
//! runs alternate; medians reported, wall and CPU time). A third line times one CommonApp:
//! finding the generator, loading its schema and compiling its templates, the fixed part of
//! the cost. Numbers only: nothing here asserts a time.
//! `KADMIT_BENCH_WRITE=FILE` also writes the CommonApp stream to FILE, for timing or
//! profiling the binary (`kadmit generate --plugin-dir plugins < FILE`).

mod common;

use kadmit::run::{run, Mode, Options, Outcome};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const APPS: usize = 1_000;
const SIZES: [&str; 3] = ["small", "medium", "big"];

/// The CommonApp stream.
fn corpus() -> String {
    let mut out = String::new();
    for i in 0..APPS {
        let size = SIZES[i % 3];
        let _ = write!(
            out,
            "apiVersion: team.example.com/v1\nkind: CommonApp\nmetadata:\n  name: app-{i:04}\n  namespace: team-{:02}\nspec:\n  image: registry.example.com/team-{:02}/app-{i:04}:1.{}.{}\n  size: {size}\n",
            i % 20,
            i % 20,
            i % 7,
            i % 11
        );
        if i % 5 == 1 && size != "small" {
            let _ = writeln!(out, "  replicas: {}", 2 + i % 6);
        }
        if i % 9 == 0 {
            let _ = writeln!(out, "  port: {}", 9000 + i % 100);
        }
        if i % 2 == 0 {
            let _ = writeln!(out, "  host: app-{i:04}.team-{:02}.example.com", i % 20);
        }
        if i % 4 == 0 {
            let _ = write!(
                out,
                "  env:\n    LOG_FORMAT: json\n    REGION: eu-west-{}\n    FEATURE_X: \"on\"\n",
                1 + i % 3
            );
        }
        out.push_str("---\n");
    }
    out
}

fn plugins() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("plugins")
}

fn options(mode: Mode) -> Options {
    let mut options = Options::new(mode);
    options.plugin_dirs = vec![plugins()];
    options
}

fn run_ok(mode: Mode, input: &[u8]) -> Outcome {
    let outcome = run(options(mode), input);
    assert_eq!(
        outcome.exit_code,
        0,
        "{:?}",
        outcome.diagnostics.first().map(|d| d.to_string())
    );
    outcome
}

/// One run: wall time, CPU time (if known) and output size.
fn run_once(mode: Mode, input: &[u8]) -> (Duration, Option<Duration>, usize) {
    let cpu_start = common::cpu_time();
    let start = Instant::now();
    let outcome = run_ok(mode, input);
    let wall = start.elapsed();
    let cpu = cpu_start
        .zip(common::cpu_time())
        .map(|(a, b)| b.saturating_sub(a));
    (wall, cpu, outcome.stdout.len())
}

/// Every CommonApp generated, with nothing to say; returns the generated stream.
fn check(input: &str) -> String {
    let outcome = run_ok(Mode::Generate, input.as_bytes());
    assert!(
        outcome.diagnostics.is_empty(),
        "{} diagnostics, the first: {}",
        outcome.diagnostics.len(),
        outcome.diagnostics[0]
    );
    for (kind, count) in [
        ("Deployment", APPS),
        ("Service", APPS),
        ("PodDisruptionBudget", APPS),
        ("Ingress", APPS / 2),
        ("CommonApp", 0),
    ] {
        assert_eq!(
            outcome
                .stdout
                .to_text()
                .matches(&format!("kind: {kind}\n"))
                .count(),
            count,
            "{kind}s generated"
        );
    }
    outcome.stdout.to_text().into_owned()
}

fn main() {
    let reps: usize = std::env::var("KADMIT_BENCH_REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let input = corpus();
    if let Ok(path) = std::env::var("KADMIT_BENCH_WRITE") {
        std::fs::write(&path, &input).expect("CommonApp stream written");
    }
    let generated = check(&input);
    let first = &input[..input.find("---\n").expect("a document") + 4];

    // The runs alternate, so that all see the same load on a shared machine.
    let (mut apps, mut one, mut passthrough) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..reps {
        apps.push(run_once(Mode::Generate, input.as_bytes()));
        one.push(run_once(Mode::Generate, first.as_bytes()));
        passthrough.push(run_once(Mode::Transform, generated.as_bytes()));
    }
    let wall = |runs: &[(Duration, Option<Duration>, usize)]| {
        common::median(runs.iter().map(|r| r.0.as_secs_f64()).collect())
    };
    let cpu = |runs: &[(Duration, Option<Duration>, usize)]| {
        let cpu: Option<Vec<f64>> = runs.iter().map(|r| r.1.map(|c| c.as_secs_f64())).collect();
        cpu.map(common::median)
    };
    let shown = |c: Option<f64>| c.map_or_else(|| "-".to_owned(), |c| format!("{c:.3}"));
    let resources =
        generated.matches("\nkind: ").count() + usize::from(generated.starts_with("kind: "));
    println!(
        "generators: {APPS} CommonApps ({:.2} MB in) -> {resources} resources ({:.2} MB out), median of {reps} (alternating)",
        input.len() as f64 / 1e6,
        generated.len() as f64 / 1e6
    );
    for (label, runs, what) in [
        (
            "generate 1,000",
            &apps,
            "kadmit generate --plugin-dir plugins, 1,000 CommonApps",
        ),
        (
            "generate 1",
            &one,
            "one CommonApp: discovery, schema, template compilation",
        ),
        (
            "pass-through",
            &passthrough,
            "kadmit transform of the generated stream",
        ),
    ] {
        println!(
            "  {label:<15} {:>8.3} s (cpu {:>6} s)  {what}",
            wall(runs),
            shown(cpu(runs))
        );
    }
    let per_app = wall(&apps) / APPS as f64;
    let marginal = (wall(&apps) - wall(&one)) / (APPS - 1) as f64;
    println!(
        "  per CommonApp: {:.1} µs ({:.1} µs beyond the fixed cost; {:.1} µs beyond reading and writing the output)",
        per_app * 1e6,
        marginal * 1e6,
        (wall(&apps) - wall(&passthrough)) / APPS as f64 * 1e6
    );
}
