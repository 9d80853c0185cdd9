//! ModRules over the generated corpus: `kadmit transform` with 50 mixed ModRules (kind and
//! label matches, regexes, filters with `#N` placeholders, templates, `length()` and
//! `isDefined()` selects, Reject rules that do not fire) against pass-through on the same
//! 10,000 resources. Run with `cargo bench --bench modrules`; `KADMIT_BENCH_REPS` sets the
//! repetitions (median reported). Numbers only: nothing here asserts a time.

use kadmit::run::{run, Mode, Options};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

const RESOURCES: usize = 10_000;

fn corpus() -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kadmit-corpus");
    std::fs::create_dir_all(&dir).expect("corpus directory");
    let path = dir.join(format!("corpus-{RESOURCES}-seed1.yaml"));
    if !path.exists() {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/gen-corpus.py");
        let out = Command::new("python3")
            .arg(script)
            .args(["--count", &RESOURCES.to_string(), "--seed", "1"])
            .output()
            .expect("python3 runs scripts/gen-corpus.py");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::write(&path, &out.stdout).expect("corpus written");
    }
    std::fs::read_to_string(path).expect("corpus read")
}

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

fn median_time(input: &[u8], reps: usize) -> (Duration, usize) {
    let mut times = Vec::new();
    let mut bytes = 0;
    for _ in 0..reps {
        let start = Instant::now();
        let outcome = run(Options::new(Mode::Transform), input);
        times.push(start.elapsed());
        assert_eq!(
            outcome.exit_code,
            0,
            "{:?}",
            outcome.diagnostics.first().map(|d| d.to_string())
        );
        bytes = outcome.stdout.len();
    }
    times.sort();
    (times[times.len() / 2], bytes)
}

fn main() {
    let reps: usize = std::env::var("KADMIT_BENCH_REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let corpus = corpus();
    let rules = modrules();
    let with_rules = format!("{rules}{corpus}");
    let (base, base_out) = median_time(corpus.as_bytes(), reps);
    let (ruled, ruled_out) = median_time(with_rules.as_bytes(), reps);
    let mb = corpus.len() as f64 / 1e6;
    println!("modrules: {RESOURCES} resources, {mb:.1} MB, 50 ModRules, median of {reps}");
    println!(
        "  pass-through     {:>8.3} s  {:>6.1} MB/s  ({base_out} bytes out)",
        base.as_secs_f64(),
        mb / base.as_secs_f64()
    );
    println!(
        "  with 50 ModRules {:>8.3} s  {:>6.1} MB/s  ({ruled_out} bytes out)",
        ruled.as_secs_f64(),
        mb / ruled.as_secs_f64()
    );
    println!(
        "  rules add {:+.0}% over pass-through",
        (ruled.as_secs_f64() / base.as_secs_f64() - 1.0) * 100.0
    );
}
