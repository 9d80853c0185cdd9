//! Sprig v3.2.2 paths (Go's `path` package; the `os…` forms are the same on Linux)
//! and durations (Go's `time.Duration` text; `duration` ignores `int` literals, as
//! Sprig's type switch only knows `int64` and strings).

use super::funcs::{f, Table, P};
use super::value::Value;
use kadmit_go::strconv::parse_int;

pub(crate) const FUNCS: Table = &[
    (
        "base",
        f(&[P::Str], |_, a| Ok(Value::str(path_base(&a.s(0))))),
    ),
    (
        "osBase",
        f(&[P::Str], |_, a| Ok(Value::str(path_base(&a.s(0))))),
    ),
    (
        "dir",
        f(&[P::Str], |_, a| Ok(Value::str(path_dir(&a.s(0))))),
    ),
    (
        "osDir",
        f(&[P::Str], |_, a| Ok(Value::str(path_dir(&a.s(0))))),
    ),
    (
        "clean",
        f(&[P::Str], |_, a| Ok(Value::str(path_clean(&a.s(0))))),
    ),
    (
        "osClean",
        f(&[P::Str], |_, a| Ok(Value::str(path_clean(&a.s(0))))),
    ),
    (
        "ext",
        f(&[P::Str], |_, a| Ok(Value::str(path_ext(&a.s(0))))),
    ),
    (
        "osExt",
        f(&[P::Str], |_, a| Ok(Value::str(path_ext(&a.s(0))))),
    ),
    (
        "isAbs",
        f(&[P::Str], |_, a| Ok(Value::Bool(a.s(0).starts_with('/')))),
    ),
    (
        "osIsAbs",
        f(&[P::Str], |_, a| Ok(Value::Bool(a.s(0).starts_with('/')))),
    ),
    (
        "duration",
        f(&[P::Any], |_, a| {
            let n = match a.v(0) {
                Value::Str(s) => parse_int(&s, 10).unwrap_or(0),
                Value::Int64(i) => i,
                _ => 0,
            };
            Ok(Value::str(duration_string(n.wrapping_mul(1_000_000_000))))
        }),
    ),
    (
        "durationRound",
        f(&[P::Any], |_, a| {
            let d = match a.v(0) {
                Value::Str(s) => kadmit_go::time::parse_duration(&s).unwrap_or(0),
                Value::Int64(i) => i,
                _ => 0,
            };
            Ok(Value::str(duration_round(d)))
        }),
    ),
];

/// Go's `path.Clean`.
fn path_clean(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let body = parts.join("/");
    match (rooted, body.is_empty()) {
        (true, _) => format!("/{body}"),
        (false, true) => ".".into(),
        (false, false) => body,
    }
}

fn path_base(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let trimmed = p.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/".into();
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_string()
}

fn path_dir(p: &str) -> String {
    let dir = match p.rfind('/') {
        Some(i) => &p[..=i],
        None => "",
    };
    path_clean(dir)
}

fn path_ext(p: &str) -> String {
    for (i, c) in p.char_indices().rev() {
        if c == '/' {
            break;
        }
        if c == '.' {
            return p[i..].to_string();
        }
    }
    String::new()
}

/// Go's `time.Duration.String` of `ns` nanoseconds.
fn duration_string(ns: i64) -> String {
    let neg = ns < 0;
    let mut u = ns.unsigned_abs();
    let sign = if neg { "-" } else { "" };
    let frac = |u: u64, prec: u32| -> (String, u64) {
        let mut digits = String::new();
        let mut v = u;
        let mut print = false;
        for _ in 0..prec {
            let d = v % 10;
            print = print || d != 0;
            if print {
                digits.insert(0, char::from(b'0' + d as u8));
            }
            v /= 10;
        }
        if print {
            digits.insert(0, '.');
        }
        (digits, v)
    };
    if u < 1_000_000_000 {
        let (unit, prec) = match u {
            0 => return "0s".into(),
            1..=999 => ("ns", 0),
            1_000..=999_999 => ("µs", 3),
            _ => ("ms", 6),
        };
        let (f, whole) = frac(u, prec);
        return format!("{sign}{whole}{f}{unit}");
    }
    let (f, secs) = frac(u, 9);
    u = secs;
    let mut out = format!("{}{f}s", u % 60);
    u /= 60;
    if u > 0 {
        out = format!("{}m{out}", u % 60);
        u /= 60;
        if u > 0 {
            out = format!("{u}h{out}");
        }
    }
    format!("{sign}{out}")
}

/// Sprig's `durationRound`.
fn duration_round(d: i64) -> String {
    let u = d.unsigned_abs();
    let hour = 3_600_000_000_000u64;
    let units = [
        (hour * 24 * 365, "y"),
        (hour * 24 * 30, "mo"),
        (hour * 24, "d"),
        (hour, "h"),
        (60_000_000_000, "m"),
        (1_000_000_000, "s"),
    ];
    for (size, name) in units {
        if u > size {
            return format!("{}{name}", u / size);
        }
    }
    "0s".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_like_go() {
        assert_eq!(path_clean("a/b/../c/./d/"), "a/c/d");
        assert_eq!(path_clean("/../a"), "/a");
        assert_eq!(path_clean("../../a"), "../../a");
        assert_eq!(path_clean(""), ".");
        assert_eq!(path_base("/a/b.txt/"), "b.txt");
        assert_eq!(path_base("///"), "/");
        assert_eq!(path_dir("/a/b/c"), "/a/b");
        assert_eq!(path_dir("c"), ".");
        assert_eq!(path_ext("a/b.tar.gz"), ".gz");
        assert_eq!(path_ext("a.b/c"), "");
    }

    #[test]
    fn durations_like_go() {
        assert_eq!(duration_string(95_000_000_000), "1m35s");
        assert_eq!(duration_string(3_600_000_000_000), "1h0m0s");
        assert_eq!(duration_string(0), "0s");
        assert_eq!(duration_string(1_500_000), "1.5ms");
        assert_eq!(duration_string(-90_000_000_000), "-1m30s");
        assert_eq!(
            kadmit_go::time::parse_duration("1h30m"),
            Some(5_400_000_000_000)
        );
        assert_eq!(kadmit_go::time::parse_duration("1.5s"), Some(1_500_000_000));
        assert_eq!(kadmit_go::time::parse_duration("x"), None);
        assert_eq!(duration_round(5_400_000_000_000), "1h");
        assert_eq!(duration_round(0), "0s");
    }
}
