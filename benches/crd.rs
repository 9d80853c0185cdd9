//! Custom resources against a large CRD: `kadmit transform --crd jobset.yaml` on 10,000
//! JobSets against pass-through `kadmit transform` of the same stream (no CRD, so the
//! JobSets are passed through untouched). The CRD is the kubectl-validate corpus's JobSet
//! (`testdata/crds/jobset.yaml`, copied from kubectl-validate's `testcases/crds/`, batch.x-k8s.io
//! v1alpha1: about 730 KB, a whole Job and Pod template schema, a CEL rule on every
//! `spec.jobs` entry, a `map` list, `protocol: TCP` defaults on container ports).
//!
//! The JobSets are generated here, deterministically (a fixed-seed SplitMix64): names,
//! namespaces (some none), labels, 1 to 4 `spec.jobs` (this v1alpha1 CRD's name for what
//! later JobSet versions call `replicatedJobs`) with or without `replicas`, DNS hostnames
//! (Indexed completion, as the CEL rule demands) or not, 1 to 3 containers with varied
//! images, commands, args, env, resources and ports, a third of those ports without
//! `protocol` so that the schema default is written. Before timing, one run checks that
//! every JobSet is admitted (exit 0, no diagnostics) and that each defaulted port got
//! `protocol: TCP`.
//!
//! Run with `cargo bench --bench crd`; `KADMIT_BENCH_REPS` sets the repetitions (the runs
//! alternate; medians reported, wall and CPU time). A third line times the CRD alone (one
//! JobSet): loading and compiling the schema, the fixed part of the cost. Numbers only:
//! nothing here asserts a time.
//! `KADMIT_BENCH_WRITE=FILE` also writes the JobSet stream to FILE, for profiling the
//! binary (`kadmit transform --crd .../jobset.yaml < FILE`).

mod common;

use kadmit::run::{run, Mode, Options, Outcome};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const RESOURCES: usize = 10_000;
const SEED: u64 = 1;

/// The JobSet CRD of the kubectl-validate corpus.
fn crd_path() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/crds/jobset.yaml");
    path.canonicalize()
        .unwrap_or_else(|e| panic!("the JobSet CRD {}: {e}", path.display()))
}

/// SplitMix64: a small deterministic generator, so the corpus is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const TEAMS: &[&str] = &[
    "ml", "search", "billing", "data", "render", "research", "ads", "infra",
];
const ENVS: &[&str] = &["dev", "staging", "prod"];
const WORKLOADS: &[&str] = &["train", "eval", "etl", "sim", "render", "index", "sweep"];
const JOBS: &[&str] = &["leader", "worker", "ps", "evaluator"];
const REGISTRIES: &[&str] = &[
    "registry.example.com",
    "gcr.io/example-project",
    "docker.io/library",
    "us-docker.pkg.dev/example/images",
];
const IMAGES: &[&str] = &["pytorch", "tensorflow", "python", "busybox", "spark", "jax"];
const CPUS: &[&str] = &["'250m'", "'500m'", "'1'", "2", "'1500m'", "4"];
const MEMORIES: &[&str] = &["128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8G"];

/// What the generator wrote, for the checks after admission.
#[derive(Default)]
struct Counts {
    jobs: usize,
    ports: usize,
    /// Ports without `protocol`: the CRD defaults them to TCP.
    defaulted: usize,
}

/// One container (or init container) at `indent` (the column of its `- `).
fn container(out: &mut String, rng: &mut Rng, counts: &mut Counts, indent: usize, name: &str) {
    let p = " ".repeat(indent);
    let image = format!(
        "{}/{}:{}.{}",
        rng.pick(REGISTRIES),
        rng.pick(IMAGES),
        1 + rng.below(3),
        rng.below(20)
    );
    let _ = writeln!(out, "{p}- name: {name}\n{p}  image: {image}");
    if rng.one_in(2) {
        let _ = writeln!(
            out,
            "{p}  command: [\"python3\", \"-m\", \"{}\"]",
            rng.pick(WORKLOADS)
        );
    }
    let args = rng.below(5);
    if args > 0 {
        let _ = writeln!(out, "{p}  args:");
        for a in 0..args {
            let _ = writeln!(out, "{p}  - --flag-{a}={}", rng.below(1000));
        }
    }
    let env = rng.below(4);
    if env > 0 {
        let _ = writeln!(out, "{p}  env:");
        for e in 0..env {
            let _ = writeln!(
                out,
                "{p}  - name: VAR_{e}\n{p}    value: \"{}\"",
                rng.next() % 10_000
            );
        }
    }
    // Ports are a map list keyed by containerPort and protocol: no two alike.
    let ports = rng.below(3);
    if ports > 0 {
        let _ = writeln!(out, "{p}  ports:");
        for port in 0..ports {
            counts.ports += 1;
            let _ = writeln!(
                out,
                "{p}  - name: port-{port}\n{p}    containerPort: {}",
                8000 + 1000 * port + rng.below(1000)
            );
            match rng.below(3) {
                0 => counts.defaulted += 1,
                1 => {
                    let _ = writeln!(out, "{p}    protocol: TCP");
                }
                _ => {
                    let _ = writeln!(out, "{p}    protocol: UDP");
                }
            }
        }
    }
    if !rng.one_in(4) {
        let _ = writeln!(
            out,
            "{p}  resources:\n{p}    requests:\n{p}      cpu: {}\n{p}      memory: {}",
            rng.pick(CPUS),
            rng.pick(MEMORIES)
        );
        if rng.one_in(2) {
            let _ = writeln!(
                out,
                "{p}    limits:\n{p}      cpu: {}\n{p}      memory: {}",
                rng.pick(CPUS),
                rng.pick(MEMORIES)
            );
        }
    }
}

/// One valid JobSet, the `i`th of the stream.
fn jobset(out: &mut String, rng: &mut Rng, counts: &mut Counts, i: usize) {
    let team = rng.pick(TEAMS);
    let workload = rng.pick(WORKLOADS);
    let _ = writeln!(
        out,
        "apiVersion: batch.x-k8s.io/v1alpha1\nkind: JobSet\nmetadata:\n  name: {team}-{workload}-{i:05}"
    );
    // One in ten names no namespace (the run's default namespace applies).
    if !rng.one_in(10) {
        let _ = writeln!(out, "  namespace: {team}-{}", rng.pick(ENVS));
    }
    let _ = writeln!(
        out,
        "  labels:\n    app.kubernetes.io/name: {workload}\n    team: {team}"
    );
    if rng.one_in(3) {
        let _ = writeln!(out, "    priority: p{}", rng.below(4));
    }
    if rng.one_in(4) {
        let _ = writeln!(
            out,
            "  annotations:\n    owner: {team}@example.com\n    kadmit.dev/build: \"{}\"",
            rng.next() % 100_000
        );
    }
    let _ = writeln!(out, "spec:\n  jobs:");
    for job in JOBS.iter().take(1 + rng.below(JOBS.len())) {
        counts.jobs += 1;
        let _ = writeln!(out, "  - name: {job}");
        // The CEL rule: DNS hostnames need Indexed completion.
        let dns = match rng.below(3) {
            0 => {
                let _ = writeln!(out, "    network:\n      enableDNSHostnames: true");
                true
            }
            1 => {
                let _ = writeln!(out, "    network:\n      enableDNSHostnames: false");
                false
            }
            _ => {
                let _ = writeln!(out, "    network: {{}}");
                false
            }
        };
        if !rng.one_in(4) {
            let _ = writeln!(out, "    replicas: {}", 1 + rng.below(16));
        }
        let _ = writeln!(out, "    template:");
        if rng.one_in(2) {
            let _ = writeln!(
                out,
                "      metadata:\n        labels:\n          job-role: {job}"
            );
        }
        let _ = writeln!(out, "      spec:");
        let completions = 1 + rng.below(8);
        if dns || rng.one_in(3) {
            let _ = writeln!(
                out,
                "        completionMode: Indexed\n        completions: {completions}\n        parallelism: {completions}"
            );
        } else if rng.one_in(2) {
            let _ = writeln!(
                out,
                "        completionMode: NonIndexed\n        parallelism: {completions}"
            );
        }
        if rng.one_in(2) {
            let _ = writeln!(out, "        backoffLimit: {}", rng.below(7));
        }
        if rng.one_in(3) {
            let _ = writeln!(
                out,
                "        ttlSecondsAfterFinished: {}",
                60 * (1 + rng.below(60))
            );
        }
        let _ = writeln!(
            out,
            "        template:\n          metadata:\n            labels:\n              jobset: {team}-{workload}-{i:05}\n          spec:\n            restartPolicy: {}",
            if rng.one_in(2) { "Never" } else { "OnFailure" }
        );
        if rng.one_in(5) {
            let _ = writeln!(out, "            initContainers:");
            container(out, rng, counts, 12, "init");
        }
        let _ = writeln!(out, "            containers:");
        for c in 0..1 + rng.below(3) {
            container(out, rng, counts, 12, &format!("c{c}"));
        }
    }
    out.push_str("---\n");
}

fn corpus() -> (String, Counts) {
    let mut rng = Rng(SEED);
    let mut counts = Counts::default();
    let mut out = String::new();
    for i in 0..RESOURCES {
        jobset(&mut out, &mut rng, &mut counts, i);
    }
    (out, counts)
}

fn options(crd: Option<&PathBuf>) -> Options {
    let mut options = Options::new(Mode::Transform);
    options.crd_paths = crd.into_iter().cloned().collect();
    options
}

fn admit(crd: Option<&PathBuf>, input: &[u8]) -> Outcome {
    let outcome = run(options(crd), input);
    assert_eq!(
        outcome.exit_code,
        0,
        "{:?}",
        outcome.diagnostics.first().map(|d| d.to_string())
    );
    outcome
}

/// One run: wall time, CPU time (if known) and output size.
fn run_once(crd: Option<&PathBuf>, input: &[u8]) -> (Duration, Option<Duration>, usize) {
    let cpu_start = common::cpu_time();
    let start = Instant::now();
    let outcome = admit(crd, input);
    let wall = start.elapsed();
    let cpu = cpu_start
        .zip(common::cpu_time())
        .map(|(a, b)| b.saturating_sub(a));
    (wall, cpu, outcome.stdout.len())
}

/// Every JobSet admitted with nothing to say, and every port without a protocol defaulted.
fn check(crd: &PathBuf, input: &str, counts: &Counts) {
    let outcome = admit(Some(crd), input.as_bytes());
    assert!(
        outcome.diagnostics.is_empty(),
        "{} diagnostics, the first: {}",
        outcome.diagnostics.len(),
        outcome.diagnostics[0]
    );
    let jobsets = outcome.stdout.to_text().matches("kind: JobSet\n").count();
    assert_eq!(jobsets, RESOURCES, "every JobSet written out");
    let tcp_in = input.matches("protocol: TCP\n").count();
    let tcp_out = outcome.stdout.to_text().matches("protocol: TCP\n").count();
    assert_eq!(
        tcp_out - tcp_in,
        counts.defaulted,
        "each port without a protocol defaulted to TCP"
    );
    // Without the CRD nothing is defaulted.
    let plain = admit(None, input.as_bytes());
    assert_eq!(
        plain.stdout.to_text().matches("protocol: TCP\n").count(),
        tcp_in
    );
}

fn main() {
    let reps: usize = std::env::var("KADMIT_BENCH_REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let crd = crd_path();
    let (corpus, counts) = corpus();
    if let Ok(path) = std::env::var("KADMIT_BENCH_WRITE") {
        std::fs::write(&path, &corpus).expect("JobSet stream written");
    }
    check(&crd, &corpus, &counts);
    let first = &corpus[..corpus.find("---\n").expect("a document") + 4];

    // The runs alternate, so that all see the same load on a shared machine.
    let (mut base, mut validated, mut fixed) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..reps {
        base.push(run_once(None, corpus.as_bytes()));
        validated.push(run_once(Some(&crd), corpus.as_bytes()));
        fixed.push(run_once(Some(&crd), first.as_bytes()));
    }
    let wall = |runs: &[(Duration, Option<Duration>, usize)]| {
        common::median(runs.iter().map(|r| r.0.as_secs_f64()).collect())
    };
    let cpu = |runs: &[(Duration, Option<Duration>, usize)]| {
        let cpu: Option<Vec<f64>> = runs.iter().map(|r| r.1.map(|c| c.as_secs_f64())).collect();
        cpu.map(common::median)
    };
    let shown = |c: Option<f64>| c.map_or_else(|| "-".to_owned(), |c| format!("{c:.2}"));
    let mb = corpus.len() as f64 / 1e6;
    println!(
        "crd: {RESOURCES} JobSets ({} jobs, {} ports, {} defaulted), {mb:.1} MB, JobSet CRD, median of {reps} (alternating)",
        counts.jobs, counts.ports, counts.defaulted
    );
    for (label, runs) in [("pass-through", &base), ("--crd jobset.yaml", &validated)] {
        println!(
            "  {label:<18} {:>8.3} s (cpu {:>5} s)  {:>6.1} MB/s  ({} bytes out)",
            wall(runs),
            shown(cpu(runs)),
            mb / wall(runs),
            runs[0].2
        );
    }
    println!(
        "  {:<18} {:>8.3} s (cpu {:>5} s)  loading and compiling the CRD, one JobSet",
        "CRD alone",
        wall(&fixed),
        shown(cpu(&fixed))
    );
    let paired: Vec<f64> = base
        .iter()
        .zip(&validated)
        .map(|(b, v)| v.0.as_secs_f64() / b.0.as_secs_f64())
        .collect();
    println!(
        "  with the CRD / pass-through: {:.2}x (medians; cpu {}, median of paired runs {:.2}x; target at most 2x)",
        wall(&validated) / wall(&base),
        match (cpu(&validated), cpu(&base)) {
            (Some(v), Some(b)) => format!("{:.2}x", v / b),
            _ => "-".to_owned(),
        },
        common::median(paired)
    );
}
