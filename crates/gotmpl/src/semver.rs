//! Sprig's `semver` and `semverCompare`: Masterminds/semver v3.1 versions (loose
//! parsing, `v` prefix, missing parts) and constraints (`= != > < >= <= ~ ~> ^`,
//! wildcards, hyphen ranges, `,`/space for AND and `||` for OR, prereleases only
//! matched by constraints that name one), plus the version methods templates can call.

use super::funcs::{f, Args, Ctx, FuncDef, Table, P};
use super::value::Value;
use regex::Regex;
use std::cmp::Ordering;
use std::rc::Rc;
use std::sync::OnceLock;

type Res = Result<Value, String>;

pub(crate) const FUNCS: Table = &[
    (
        "semver",
        f(&[P::Str], |_, a| {
            Version::parse(&a.s(0)).map(|v| Value::Version(Rc::new(v)))
        }),
    ),
    ("semverCompare", f(&[P::Str, P::Str], semver_compare)),
];

#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Version {
    major: u64,
    minor: u64,
    patch: u64,
    pre: String,
    metadata: String,
    original: String,
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        if !self.metadata.is_empty() {
            write!(f, "+{}", self.metadata)?;
        }
        Ok(())
    }
}

const CV: &str = r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
const OPS: &str = r"!=|>=|=>|<=|=<|~>|=|>|<|~|\^|";

struct Regexes {
    version: Regex,
    constraint: Regex,
    range: Regex,
    find: Regex,
    valid: Regex,
}

fn regexes() -> &'static Regexes {
    static R: OnceLock<Regexes> = OnceLock::new();
    R.get_or_init(|| {
        let compile = |p: &str| kadmit_go::regexp::compile(p).expect("semver patterns are valid");
        Regexes {
            version: compile(r"^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?$"),
            constraint: compile(&format!(r"^\s*({OPS})\s*({CV})\s*$")),
            range: compile(&format!(r"\s*({CV})\s+-\s+({CV})\s*")),
            find: compile(&format!(r"({OPS})\s*({CV})")),
            valid: compile(&format!(r"^(\s*({OPS})\s*({CV})\s*,?)+$")),
        }
    })
}

fn segment(s: &str) -> Result<u64, String> {
    s.parse::<u64>().map_err(|_| {
        format!(
            "Error parsing version segment: strconv.ParseUint: parsing {}: value out of range",
            kadmit_go::strconv::quote(s, false)
        )
    })
}

impl Version {
    pub(crate) fn parse(v: &str) -> Result<Version, String> {
        let Some(m) = regexes().version.captures(v) else {
            return Err("Invalid Semantic Version".into());
        };
        let get = |i: usize| m.get(i).map(|x| x.as_str()).unwrap_or("");
        let part = |i: usize| -> Result<u64, String> {
            let s = get(i).trim_start_matches('.');
            if s.is_empty() {
                Ok(0)
            } else {
                segment(s)
            }
        };
        let ver = Version {
            major: segment(get(1))?,
            minor: part(2)?,
            patch: part(3)?,
            pre: get(5).to_string(),
            metadata: get(8).to_string(),
            original: v.to_string(),
        };
        for p in ver.pre.split('.').filter(|_| !ver.pre.is_empty()) {
            if p.len() > 1 && p.starts_with('0') && p.bytes().all(|b| b.is_ascii_digit()) {
                return Err("Version segment starts with 0".into());
            }
        }
        Ok(ver)
    }

    pub(crate) fn compare(&self, o: &Version) -> Ordering {
        self.major
            .cmp(&o.major)
            .then(self.minor.cmp(&o.minor))
            .then(self.patch.cmp(&o.patch))
            .then_with(|| match (self.pre.is_empty(), o.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                _ => compare_pre(&self.pre, &o.pre),
            })
    }
}

fn compare_pre(a: &str, b: &str) -> Ordering {
    let (x, y): (Vec<&str>, Vec<&str>) = (a.split('.').collect(), b.split('.').collect());
    for i in 0..x.len().max(y.len()) {
        let (s, o) = (
            x.get(i).copied().unwrap_or(""),
            y.get(i).copied().unwrap_or(""),
        );
        if s == o {
            continue;
        }
        if s.is_empty() {
            return Ordering::Less;
        }
        if o.is_empty() {
            return Ordering::Greater;
        }
        return match (s.parse::<u64>(), o.parse::<u64>()) {
            (Err(_), Err(_)) => {
                if s > o {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
            (Ok(_), Err(_)) => Ordering::Less,
            (Err(_), Ok(_)) => Ordering::Greater,
            (Ok(p), Ok(q)) => {
                if p > q {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
        };
    }
    Ordering::Equal
}

struct Constraint {
    op: String,
    con: Version,
    minor_dirty: bool,
    patch_dirty: bool,
    dirty: bool,
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "X" | "*")
}

fn parse_constraint(c: &str) -> Result<Constraint, String> {
    let Some(m) = regexes().constraint.captures(c) else {
        return Err(format!("improper constraint: {c}"));
    };
    let get = |i: usize| m.get(i).map(|x| x.as_str()).unwrap_or("");
    let (mut minor_dirty, mut patch_dirty, mut dirty) = (false, false, false);
    let ver = if is_x(get(3)) || get(3).is_empty() {
        dirty = true;
        "0.0.0".to_string()
    } else if is_x(get(4).trim_start_matches('.')) || get(4).is_empty() {
        minor_dirty = true;
        dirty = true;
        format!("{}.0.0{}", get(3), get(6))
    } else if is_x(get(5).trim_start_matches('.')) {
        dirty = true;
        patch_dirty = true;
        format!("{}{}.0{}", get(3), get(4), get(6))
    } else {
        get(2).to_string()
    };
    let con = Version::parse(&ver).map_err(|_| "constraint Parser Error".to_string())?;
    Ok(Constraint {
        op: get(1).to_string(),
        con,
        minor_dirty,
        patch_dirty,
        dirty,
    })
}

fn parse_constraints(c: &str) -> Result<Vec<Vec<Constraint>>, String> {
    let r = regexes();
    let mut text = c.to_string();
    for m in r.range.captures_iter(c) {
        let whole = m.get(0).map(|x| x.as_str()).unwrap_or("");
        let (a, b) = (
            m.get(1).map(|x| x.as_str()).unwrap_or(""),
            m.get(11).map(|x| x.as_str()).unwrap_or(""),
        );
        text = text.replacen(whole, &format!(">= {a}, <= {b}"), 1);
    }
    text.split("||")
        .map(|or| {
            if !r.valid.is_match(or) {
                return Err(format!("improper constraint: {or}"));
            }
            let found: Vec<&str> = r.find.find_iter(or).map(|m| m.as_str()).collect();
            let found = if found.is_empty() { vec![or] } else { found };
            found.into_iter().map(parse_constraint).collect()
        })
        .collect()
}

impl Constraint {
    fn check(&self, v: &Version) -> bool {
        let c = &self.con;
        if !v.pre.is_empty() && c.pre.is_empty() {
            return false;
        }
        let tilde = || {
            if v.compare(c) == Ordering::Less {
                return false;
            }
            if c.major == 0
                && c.minor == 0
                && c.patch == 0
                && !self.minor_dirty
                && !self.patch_dirty
            {
                return true;
            }
            v.major == c.major && (v.minor == c.minor || self.minor_dirty)
        };
        match self.op.as_str() {
            "" | "=" => {
                if self.dirty {
                    tilde()
                } else {
                    v.compare(c) == Ordering::Equal
                }
            }
            "!=" => {
                if self.dirty {
                    if c.major != v.major {
                        return true;
                    }
                    if c.minor != v.minor && !self.minor_dirty {
                        return true;
                    }
                    if self.minor_dirty {
                        return false;
                    }
                    if c.patch != v.patch && !self.patch_dirty {
                        return true;
                    }
                    if self.patch_dirty {
                        if !v.pre.is_empty() || !c.pre.is_empty() {
                            return compare_pre(&v.pre, &c.pre) != Ordering::Equal;
                        }
                        return false;
                    }
                }
                v.compare(c) != Ordering::Equal
            }
            ">" => {
                if !self.dirty {
                    return v.compare(c) == Ordering::Greater;
                }
                if v.major != c.major {
                    return v.major > c.major;
                }
                if self.minor_dirty {
                    return false;
                }
                if self.patch_dirty {
                    return v.minor > c.minor;
                }
                v.compare(c) == Ordering::Greater
            }
            "<" => v.compare(c) == Ordering::Less,
            ">=" | "=>" => v.compare(c) != Ordering::Less,
            "<=" | "=<" => {
                if !self.dirty {
                    return v.compare(c) != Ordering::Greater;
                }
                !(v.major > c.major
                    || (v.major == c.major && v.minor > c.minor && !self.minor_dirty))
            }
            "~" | "~>" => tilde(),
            "^" => {
                if v.compare(c) == Ordering::Less {
                    return false;
                }
                if c.major > 0 || self.minor_dirty {
                    return v.major == c.major;
                }
                if c.minor > 0 || self.patch_dirty {
                    return v.minor == c.minor;
                }
                c.patch == v.patch
            }
            _ => false,
        }
    }
}

fn semver_compare(_: &mut Ctx, a: &Args) -> Res {
    let groups = parse_constraints(&a.s(0))?;
    let v = Version::parse(&a.s(1))?;
    Ok(Value::Bool(
        groups.iter().any(|and| and.iter().all(|c| c.check(&v))),
    ))
}

fn recv(a: &Args) -> Option<Rc<Version>> {
    match a.v(0) {
        Value::Version(v) => Some(v),
        _ => None,
    }
}

fn other(a: &Args) -> Result<(Rc<Version>, Rc<Version>), String> {
    match (recv(a), a.v(1)) {
        (Some(v), Value::Version(o)) => Ok((v, o)),
        _ => Err("runtime error: invalid memory address or nil pointer dereference".into()),
    }
}

const METHODS: Table = &[
    (
        "Major",
        f(&[], |_, a| {
            Ok(Value::Uint(recv(a).map(|v| v.major).unwrap_or(0), false))
        }),
    ),
    (
        "Minor",
        f(&[], |_, a| {
            Ok(Value::Uint(recv(a).map(|v| v.minor).unwrap_or(0), false))
        }),
    ),
    (
        "Patch",
        f(&[], |_, a| {
            Ok(Value::Uint(recv(a).map(|v| v.patch).unwrap_or(0), false))
        }),
    ),
    (
        "Prerelease",
        f(&[], |_, a| {
            Ok(Value::str(
                recv(a).map(|v| v.pre.clone()).unwrap_or_default(),
            ))
        }),
    ),
    (
        "Metadata",
        f(&[], |_, a| {
            Ok(Value::str(
                recv(a).map(|v| v.metadata.clone()).unwrap_or_default(),
            ))
        }),
    ),
    (
        "Original",
        f(&[], |_, a| {
            Ok(Value::str(
                recv(a).map(|v| v.original.clone()).unwrap_or_default(),
            ))
        }),
    ),
    (
        "String",
        f(&[], |_, a| {
            Ok(Value::str(
                recv(a).map(|v| v.to_string()).unwrap_or_default(),
            ))
        }),
    ),
    (
        "Compare",
        f(&[P::Version], |_, a| {
            let (v, o) = other(a)?;
            Ok(Value::Int(match v.compare(&o) {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            }))
        }),
    ),
    (
        "LessThan",
        f(&[P::Version], |_, a| {
            other(a).map(|(v, o)| Value::Bool(v.compare(&o) == Ordering::Less))
        }),
    ),
    (
        "GreaterThan",
        f(&[P::Version], |_, a| {
            other(a).map(|(v, o)| Value::Bool(v.compare(&o) == Ordering::Greater))
        }),
    ),
    (
        "Equal",
        f(&[P::Version], |_, a| {
            other(a).map(|(v, o)| Value::Bool(v.compare(&o) == Ordering::Equal))
        }),
    ),
];

/// A method of `*semver.Version` callable as `.Major`, `.LessThan $other`, ….
pub(crate) fn method(name: &str) -> Option<&'static FuncDef> {
    METHODS.iter().find(|(n, _)| *n == name).map(|(_, d)| d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(c: &str, v: &str) -> bool {
        let groups = parse_constraints(c).unwrap();
        let v = Version::parse(v).unwrap();
        groups.iter().any(|and| and.iter().all(|c| c.check(&v)))
    }

    #[test]
    fn versions_parse_loosely() {
        assert_eq!(Version::parse("v1.2").unwrap().to_string(), "1.2.0");
        assert_eq!(
            Version::parse("1.2.3-beta.1+build").unwrap().to_string(),
            "1.2.3-beta.1+build"
        );
        assert!(Version::parse("1.2.3-01").is_err());
        assert!(Version::parse("abc").is_err());
        let a = Version::parse("1.0.0-alpha").unwrap();
        let b = Version::parse("1.0.0-alpha.1").unwrap();
        let c = Version::parse("1.0.0").unwrap();
        assert_eq!(a.compare(&b), Ordering::Less);
        assert_eq!(b.compare(&c), Ordering::Less);
    }

    #[test]
    fn constraints_like_masterminds() {
        assert!(check(">=1.2.3", "1.3.0"));
        assert!(!check(">=1.2.3", "1.2.2"));
        assert!(check("^1.2.3", "1.9.0"));
        assert!(!check("^1.2.3", "2.0.0"));
        assert!(check("~1.2.3", "1.2.9"));
        assert!(!check("~1.2.3", "1.3.0"));
        assert!(check("1.2.x", "1.2.7"));
        assert!(check("1.2 - 1.4", "1.3.5"));
        assert!(!check("1.2 - 1.4", "1.5.0"));
        assert!(check(">1.0, <2.0 || >=3", "3.1.0"));
        assert!(check("*", "5.0.0"));
        assert!(!check(">=1.0", "1.5.0-beta"));
        assert!(check(">=1.0-0", "1.5.0-beta"));
        assert!(check("!=1.2.3", "1.2.4"));
        assert!(parse_constraints("nope").is_err());
    }
}
