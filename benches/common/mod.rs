//! Helpers the benchmarks share: the generated corpus and the process's CPU time.

// Each benchmark uses a different subset of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Where the benchmarks keep generated corpora between runs.
pub fn corpus_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kadmit-corpus");
    std::fs::create_dir_all(&dir).expect("corpus directory");
    dir
}

/// The `scripts/gen-corpus.py` stream of `count` resources (seed 1), generated into `dir`
/// once and read from there afterwards.
pub fn corpus(dir: &Path, count: usize) -> String {
    let path = dir.join(format!("corpus-{count}-seed1.yaml"));
    if !path.exists() {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gen-corpus.py");
        eprintln!("generating {} ...", path.display());
        let output = Command::new("python3")
            .arg(&script)
            .args(["--count", &count.to_string(), "--seed", "1"])
            .output()
            .expect("python3 runs scripts/gen-corpus.py");
        assert!(
            output.status.success(),
            "gen-corpus.py failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let partial = path.with_extension("partial");
        std::fs::write(&partial, &output.stdout).expect("corpus written");
        std::fs::rename(&partial, &path).expect("corpus renamed");
    }
    std::fs::read_to_string(&path).expect("corpus read")
}

/// User + system CPU time of this process, from `/proc/self/stat` (clock ticks, 10 ms).
/// On a shared machine it is steadier than wall time; `None` off Linux.
pub fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

/// The middle value (the upper middle of an even count).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
