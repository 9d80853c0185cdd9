//! The baseline `scripts/bench.sh` divides kadmit's pass-through throughput by: a
//! serde_yaml parse-and-emit of the same stream, every document to a `serde_yaml::Value`
//! and back (the same round trip as `benches/passthrough.rs`'s baseline), as a program of
//! its own so that both sides are measured as processes, on the same file, side by side.
//!
//!     serde-yaml-baseline FILE > OUT

use serde::Deserialize;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(path), None) = (args.next(), args.next()) else {
        eprintln!("usage: serde-yaml-baseline FILE (the serde_yaml round trip of FILE on stdout)");
        return ExitCode::from(2);
    };
    let input = match std::fs::read_to_string(&path) {
        Ok(input) => input,
        Err(e) => {
            eprintln!("serde-yaml-baseline: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (i, document) in serde_yaml::Deserializer::from_str(&input).enumerate() {
        let value = match serde_yaml::Value::deserialize(document) {
            Ok(value) => value,
            Err(e) => {
                eprintln!("serde-yaml-baseline: {path}: document {}: {e}", i + 1);
                return ExitCode::from(1);
            }
        };
        let text = serde_yaml::to_string(&value).expect("a Value always serializes");
        let written = if i > 0 {
            out.write_all(b"---\n")
                .and_then(|()| out.write_all(text.as_bytes()))
        } else {
            out.write_all(text.as_bytes())
        };
        if let Err(e) = written {
            eprintln!("serde-yaml-baseline: writing: {e}");
            return ExitCode::from(2);
        }
    }
    match out.flush() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("serde-yaml-baseline: writing: {e}");
            ExitCode::from(2)
        }
    }
}
