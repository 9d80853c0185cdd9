//! ModRules over the generated corpus: `kadmit transform` with 50 mixed ModRules (kind and
//! label matches, regexes, filters with `#N` placeholders, templates, `length()` and
//! `isDefined()` selects, Reject rules that do not fire) against pass-through on the same
//! 10,000 resources. Run with `cargo bench --bench modrules`; `KADMIT_BENCH_REPS` sets the
//! repetitions (the two alternate; medians reported, wall and CPU time). Numbers only:
//! nothing here asserts a time.
//! `KADMIT_BENCH_WRITE=FILE` also writes the input with the rules to FILE, for profiling
//! the binary (`kadmit transform < FILE`).

mod common;

use kadmit::run::{run, Mode, Options};
use std::time::{Duration, Instant};

const RESOURCES: usize = 10_000;

fn rule(name: &str, spec: &str) -> String {
    format!("apiVersion: api.kubemod.io/v1beta1\nkind: ModRule\nmetadata:\n  name: {name}\nspec:\n{spec}---\n")
}

/// Fifty rules shaped like real ones; most match some resources, some match none.
fn modrules() -> String {
    let teams = ["catalog", "search", "billing", "checkout", "identity"];
    let mut out = String::new();
    for (i, team) in teams.iter().cycle().take(10).enumerate() {
        out += &rule(&format!("owner-{i}"), &format!(
            "  type: Patch\n  match:\n  - select: '$.metadata.labels.team'\n    matchValue: {team}\n  - select: '$.kind'\n    matchValues: [Deployment, StatefulSet]\n  patch:\n  - op: add\n    path: /metadata/annotations/rule-{i}\n    value: '\"{{{{ .Target.metadata.name }}}} in {{{{ .Namespace }}}}\"'\n"
        ));
    }
    for i in 0..10 {
        out += &rule(&format!("pull-policy-{i}"), &format!(
            "  type: Patch\n  match:\n  - select: '$.spec.template.spec.containers[*].image'\n    matchRegex: 'registry.example.com/.*:{i}'\n  patch:\n  - op: add\n    select: '$.spec.template.spec.containers[? @.image =~ \"example\"]'\n    path: /spec/template/spec/containers/#0/imagePullPolicy\n    value: Always\n"
        ));
    }
    for i in 0..10 {
        out += &rule(&format!("replicas-{i}"), &format!(
            "  type: Patch\n  executionTier: {tier}\n  match:\n  - select: '$.spec.replicas > {i}'\n  - select: 'isDefined($.spec.template.spec.containers)'\n  - select: 'length($.spec.template.spec.containers) > 0'\n  patch:\n  - op: add\n    path: /metadata/labels/replicas-over-{i}\n    value: '\"{{{{ .Target.spec.replicas }}}}\"'\n",
            tier = i % 3
        ));
    }
    for i in 0..10 {
        out += &rule(&format!("deny-{i}"), &format!(
            "  type: Reject\n  rejectMessage: 'host network is not allowed ({i})'\n  match:\n  - select: '$.spec.template.spec.hostNetwork == true'\n  - select: '$.metadata.namespace'\n    matchRegex: '^team-{i}-'\n"
        ));
    }
    for i in 0..10 {
        out += &rule(&format!("scrape-{i}"), &format!(
            "  type: Patch\n  match:\n  - select: '$.metadata.annotations[\"prometheus.io/scrape\"]'\n    matchValue: 'true'\n  - select: '$.metadata.namespace'\n    matchRegex: '-{i}$'\n  - select: '$.spec.ports[*].port'\n    matchValues: ['443', '80', '8080']\n  patch:\n  - op: add\n    path: /metadata/labels/scraped\n    value: 'yes'\n"
        ));
    }
    out
}

/// One run: wall time, CPU time (if known) and output size.
fn run_once(input: &[u8]) -> (Duration, Option<Duration>, usize) {
    let cpu_start = common::cpu_time();
    let start = Instant::now();
    let outcome = run(Options::new(Mode::Transform), input);
    let wall = start.elapsed();
    let cpu = cpu_start
        .zip(common::cpu_time())
        .map(|(a, b)| b.saturating_sub(a));
    assert_eq!(
        outcome.exit_code,
        0,
        "{:?}",
        outcome.diagnostics.first().map(|d| d.to_string())
    );
    (wall, cpu, outcome.stdout.len())
}

fn main() {
    let reps: usize = std::env::var("KADMIT_BENCH_REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let corpus = common::corpus(&common::corpus_dir(), RESOURCES);
    let rules = modrules();
    let with_rules = format!("{rules}{corpus}");
    if let Ok(path) = std::env::var("KADMIT_BENCH_WRITE") {
        std::fs::write(&path, &with_rules).expect("input with rules written");
    }
    // The two alternate, so that both see the same load on a shared machine.
    let (mut base, mut ruled) = (Vec::new(), Vec::new());
    for _ in 0..reps {
        base.push(run_once(corpus.as_bytes()));
        ruled.push(run_once(with_rules.as_bytes()));
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
        "modrules: {RESOURCES} resources, {mb:.1} MB, 50 ModRules, median of {reps} (alternating)"
    );
    for (label, runs) in [("pass-through", &base), ("with 50 ModRules", &ruled)] {
        println!(
            "  {label:<16} {:>8.3} s (cpu {:>5} s)  {:>6.1} MB/s  ({} bytes out)",
            wall(runs),
            shown(cpu(runs)),
            mb / wall(runs),
            runs[0].2
        );
    }
    let paired: Vec<f64> = base
        .iter()
        .zip(&ruled)
        .map(|(b, r)| r.0.as_secs_f64() / b.0.as_secs_f64())
        .collect();
    println!(
        "  rules add {:+.0}% over pass-through (medians; cpu {}, median of paired runs {:+.0}%)",
        (wall(&ruled) / wall(&base) - 1.0) * 100.0,
        match (cpu(&ruled), cpu(&base)) {
            (Some(r), Some(b)) => format!("{:+.0}%", (r / b - 1.0) * 100.0),
            _ => "-".to_owned(),
        },
        (common::median(paired) - 1.0) * 100.0
    );
}
