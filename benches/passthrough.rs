//! Pass-through throughput: `kadmit transform` with no configuration (the library path
//! `kadmit::run::run`) against a serde_yaml parse-and-emit of the same stream.
//!
//! Run with `cargo bench --bench passthrough`. The corpora come from
//! `scripts/gen-corpus.py --seed 1` (Python 3 needed) and are cached in Cargo's target
//! tmp directory. Environment knobs:
//!
//! - `KADMIT_BENCH_SIZES`: resource counts, comma-separated (default `10000,100000`);
//! - `KADMIT_BENCH_REPS`: repetitions per measurement, the median is reported (default 3);
//! - `KADMIT_BENCH_CORPUS_DIR`: where corpora are read from / written to.
//!
//! Besides wall time it reports the peak heap each path allocated (a counting global
//! allocator) and, for the smallest corpus, a breakdown of kadmit's pass-through phases.
//! Numbers only: nothing here asserts a time.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The system allocator, counting live bytes and their high-water mark.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grow(new_size);
        }
        p
    }
}

fn grow(size: usize) {
    let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One measurement: median wall time, median CPU time of this process (when Linux says),
/// and the peak heap above what was live at the start.
struct Sample {
    median: Duration,
    cpu: Option<Duration>,
    times: Vec<Duration>,
    peak_heap: usize,
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn measure<T>(reps: usize, mut f: impl FnMut() -> T) -> Sample {
    let mut times = Vec::with_capacity(reps);
    let mut cpu = Vec::with_capacity(reps);
    let mut peak_heap = 0;
    for _ in 0..reps {
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let cpu_start = common::cpu_time();
        let start = Instant::now();
        let out = f();
        times.push(start.elapsed());
        if let (Some(a), Some(b)) = (cpu_start, common::cpu_time()) {
            cpu.push(b.saturating_sub(a));
        }
        peak_heap = peak_heap.max(PEAK.load(Ordering::Relaxed).saturating_sub(base));
        std::hint::black_box(&out);
        drop(out);
    }
    Sample {
        median: median(times.clone()),
        cpu: (cpu.len() == reps).then(|| median(cpu)),
        times,
        peak_heap,
    }
}

/// `kadmit transform --no-builtins`: pass-through measures reading and writing, not the
/// admission of built-in kinds (docs/performance.md, "Built-in kinds", measures that).
fn default_transform_options() -> kadmit::run::Options {
    let args = ["transform".to_owned(), "--no-builtins".to_owned()];
    match kadmit::cli::detect(&args, false) {
        kadmit::cli::Invocation::Run { options, .. } => options,
        _ => panic!("`kadmit transform` parses to a run"),
    }
}

fn kadmit_passthrough(input: &str) -> String {
    let outcome = kadmit::run::run(default_transform_options(), input.as_bytes());
    assert_eq!(outcome.exit_code, 0, "{:?}", outcome.diagnostics.first());
    outcome.stdout.to_text().into_owned()
}

/// The baseline: every document to a `serde_yaml::Value` and back, into one string.
fn serde_yaml_roundtrip(input: &str) -> String {
    use serde::Deserialize;
    let mut out = String::new();
    for (i, document) in serde_yaml::Deserializer::from_str(input).enumerate() {
        let value = serde_yaml::Value::deserialize(document).expect("corpus is valid YAML");
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(&serde_yaml::to_string(&value).expect("a Value always serializes"));
    }
    out
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

fn row(label: &str, input_bytes: usize, s: &Sample) {
    let secs = s.median.as_secs_f64();
    let all: Vec<String> = s
        .times
        .iter()
        .map(|t| format!("{:.2}", t.as_secs_f64()))
        .collect();
    let cpu = s
        .cpu
        .map_or_else(|| "-".to_owned(), |c| format!("{:.2}", c.as_secs_f64()));
    println!(
        "  {label:<22} {secs:>8.3} s (cpu {cpu:>6} s) {:>8.2} MB/s   peak heap {:>7.1} MB ({:.2}x input)   runs [{}]",
        mb(input_bytes) / secs,
        mb(s.peak_heap),
        s.peak_heap as f64 / input_bytes as f64,
        all.join(", ")
    );
}

/// Where pass-through time goes, phase by phase, on one corpus.
fn phases(input: &str, reps: usize) {
    use kadmit_yaml::compose::compose;
    use kadmit_yaml::emit::write_document;
    use kadmit_yaml::split::split_documents;
    use serde_json::Value;

    let n = input.len();
    println!("  phases (kadmit internals, same corpus):");
    let split = measure(reps, || split_documents(input).expect("splits").len());
    row("split ---", n, &split);
    let chunks = split_documents(input).expect("splits");
    let composed = measure(reps, || {
        chunks
            .iter()
            .map(|c| compose(c.text).expect("composes"))
            .collect::<Vec<_>>()
    });
    row("compose (yaml-rust2)", n, &composed);
    let values: Vec<Value> = chunks
        .iter()
        .flat_map(|c| compose(c.text).expect("composes"))
        .map(|d| d.value)
        .collect();
    let to_json = measure(reps, || {
        values
            .iter()
            .map(|v| serde_json::to_string(v).expect("serializes"))
            .collect::<Vec<_>>()
    });
    row("slot: to JSON text", n, &to_json);
    let bodies: Vec<String> = values
        .iter()
        .map(|v| serde_json::to_string(v).expect("serializes"))
        .collect();
    let from_json = measure(reps, || {
        bodies
            .iter()
            .map(|b| serde_json::from_str::<Value>(b).expect("parses"))
            .collect::<Vec<_>>()
    });
    row("slot: JSON text back", n, &from_json);
    let emitted = measure(reps, || {
        let mut out = String::new();
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                out.push_str("---\n");
            }
            write_document(&mut out, v);
        }
        out
    });
    row("emit", n, &emitted);
    let body_bytes: usize = bodies.iter().map(String::len).sum();
    println!(
        "  compact JSON held between read and admit: {:.1} MB ({:.2}x input)",
        mb(body_bytes),
        body_bytes as f64 / n as f64
    );
}

fn main() {
    // `cargo bench` passes `--bench`; a filter or other libtest flags are ignored.
    let sizes: Vec<usize> = std::env::var("KADMIT_BENCH_SIZES")
        .unwrap_or_else(|_| "10000,100000".to_owned())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let reps = env_or("KADMIT_BENCH_REPS", 3usize).max(1);
    let dir = std::env::var_os("KADMIT_BENCH_CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kadmit-corpus"));
    std::fs::create_dir_all(&dir).expect("corpus directory");

    let mut kadmit_times = Vec::new();
    for (i, &count) in sizes.iter().enumerate() {
        let input = common::corpus(&dir, count);
        println!(
            "{count} resources, {:.1} MB ({reps} runs each, median)",
            mb(input.len())
        );
        let k = measure(reps, || kadmit_passthrough(&input));
        row("kadmit run::run", input.len(), &k);
        let b = measure(reps, || serde_yaml_roundtrip(&input));
        row("serde_yaml baseline", input.len(), &b);
        println!(
            "  kadmit / serde_yaml time: {:.2}x",
            k.median.as_secs_f64() / b.median.as_secs_f64()
        );
        if i == 0 {
            phases(&input, reps);
        }
        kadmit_times.push((count, input.len(), k.median, b.median));
    }
    for pair in kadmit_times.windows(2) {
        let [(c0, n0, k0, b0), (c1, n1, k1, b1)] = pair else {
            continue;
        };
        let size = *n1 as f64 / *n0 as f64;
        println!(
            "linearity {c1}/{c0}: input {size:.2}x, kadmit time {:.2}x, serde_yaml time {:.2}x",
            k1.as_secs_f64() / k0.as_secs_f64(),
            b1.as_secs_f64() / b0.as_secs_f64(),
        );
    }
}
