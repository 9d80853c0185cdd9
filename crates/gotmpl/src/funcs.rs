//! The function table: Go's builtins and Sprig's functions with their Go signatures
//! (parameter types drive Go's argument checks), the functions kadmit refuses and why,
//! and the per-execution context functions draw their budget from.

use super::value::{Slot, Value};
use super::{MAX_STEPS, MAX_STRING_BYTES};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};

/// A parameter type, as far as Go's argument checks care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum P {
    /// `interface {}`.
    Any,
    /// `reflect.Value` (Go builtins): receives missing and nil values as they are.
    Rv,
    Str,
    Int,
    Float,
    Bool,
    /// `map[string]interface {}`.
    Map,
    /// `*semver.Version`.
    Version,
}

impl P {
    pub(crate) fn name(self) -> &'static str {
        match self {
            P::Any => "interface {}",
            P::Rv => "reflect.Value",
            P::Str => "string",
            P::Int => "int",
            P::Float => "float64",
            P::Bool => "bool",
            P::Map => "map[string]interface {}",
            P::Version => "*semver.Version",
        }
    }

    pub(crate) fn can_be_nil(self) -> bool {
        matches!(self, P::Any | P::Rv | P::Map | P::Version)
    }

    /// The zero value passed for a missing argument.
    pub(crate) fn zero(self) -> Slot {
        match self {
            P::Rv => Slot::MISSING,
            P::Any => Slot::boxed(Value::Nil),
            _ => Slot::plain(Value::Nil),
        }
    }

    pub(crate) fn accepts(self, v: &Value) -> bool {
        matches!(
            (self, v),
            (P::Any | P::Rv, _)
                | (P::Str, Value::Str(_))
                | (P::Int, Value::Int(_))
                | (P::Float, Value::Float(_))
                | (P::Bool, Value::Bool(_))
                | (P::Map, Value::Map(_, super::value::Elem::Any))
                | (P::Version, Value::Version(_))
        )
    }
}

pub(crate) type ValFn = fn(&mut Ctx, &Args) -> Result<Value, String>;
pub(crate) type SlotFn = fn(&mut Ctx, &Args) -> Result<Slot, String>;

#[derive(Clone, Copy)]
pub(crate) enum Imp {
    /// Returns a value; boxed when the Go function returns `interface {}`.
    Val(ValFn),
    /// Returns a slot as is (builtins returning `reflect.Value`).
    Slot(SlotFn),
    /// `and` (false) and `or` (true), which short-circuit.
    AndOr(bool),
}

pub(crate) struct FuncDef {
    pub params: &'static [P],
    pub variadic: Option<P>,
    /// The Go function returns `interface {}`.
    pub boxed: bool,
    pub imp: Imp,
}

/// A function of fixed parameters returning a concrete type.
pub(crate) const fn f(params: &'static [P], imp: ValFn) -> FuncDef {
    FuncDef {
        params,
        variadic: None,
        boxed: false,
        imp: Imp::Val(imp),
    }
}

/// A variadic function returning a concrete type.
pub(crate) const fn fv(params: &'static [P], variadic: P, imp: ValFn) -> FuncDef {
    FuncDef {
        params,
        variadic: Some(variadic),
        boxed: false,
        imp: Imp::Val(imp),
    }
}

/// The same function, returning `interface {}`.
pub(crate) const fn boxed(def: FuncDef) -> FuncDef {
    FuncDef { boxed: true, ..def }
}

pub(crate) type Table = &'static [(&'static str, FuncDef)];

/// Evaluated arguments; typed parameters have been checked by the executor.
pub(crate) struct Args(pub Vec<Slot>);

impl Args {
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn slot(&self, i: usize) -> Slot {
        self.0.get(i).cloned().unwrap_or(Slot::MISSING)
    }

    /// An `interface {}` argument: nil when missing.
    pub(crate) fn v(&self, i: usize) -> Value {
        self.0.get(i).map(Slot::value).unwrap_or(Value::Nil)
    }

    pub(crate) fn s(&self, i: usize) -> String {
        match self.0.get(i).and_then(|s| s.v.as_ref()) {
            Some(Value::Str(s)) => s.to_string(),
            _ => String::new(),
        }
    }

    pub(crate) fn i(&self, i: usize) -> i64 {
        self.0
            .get(i)
            .and_then(|s| s.v.as_ref())
            .and_then(Value::as_i64)
            .unwrap_or(0)
    }

    pub(crate) fn f(&self, i: usize) -> f64 {
        match self.0.get(i).and_then(|s| s.v.as_ref()) {
            Some(Value::Float(f)) => *f,
            _ => 0.0,
        }
    }

    pub(crate) fn b(&self, i: usize) -> bool {
        matches!(
            self.0.get(i).and_then(|s| s.v.as_ref()),
            Some(Value::Bool(true))
        )
    }

    /// Arguments from `from` on, as `interface {}` values.
    pub(crate) fn rest(&self, from: usize) -> Vec<Value> {
        self.0.iter().skip(from).map(Slot::value).collect()
    }
}

/// Per-execution counters shared with the functions.
#[derive(Default)]
pub(crate) struct Ctx {
    pub steps: u64,
    pub bytes: u64,
}

/// Most patterns [`Ctx::regex`] keeps compiled; past that the cache starts over.
const CACHED_REGEXES: usize = 256;

impl Ctx {
    /// Counts `n` units of work (list elements produced) against the step limit.
    pub(crate) fn charge(&mut self, n: u64) -> Result<(), String> {
        self.steps += n;
        if self.steps > MAX_STEPS {
            return Err(format!("template execution exceeded {MAX_STEPS} steps"));
        }
        Ok(())
    }

    /// Counts bytes of produced strings against the string limit.
    pub(crate) fn charge_bytes(&mut self, n: usize) -> Result<(), String> {
        self.bytes += n as u64;
        if self.bytes > MAX_STRING_BYTES {
            return Err(format!(
                "template execution produced more than {MAX_STRING_BYTES} bytes of strings"
            ));
        }
        Ok(())
    }

    /// Refuses a result that would be larger than one value may be.
    pub(crate) fn check_size(&self, n: usize) -> Result<(), String> {
        if n > super::MAX_OUTPUT {
            return Err(format!("result is larger than {} bytes", super::MAX_OUTPUT));
        }
        Ok(())
    }

    /// A Go RE2 pattern, compiled once for every execution in the process.
    pub(crate) fn regex(&mut self, pattern: &str) -> Result<regex::Regex, String> {
        static CACHE: OnceLock<Mutex<HashMap<String, regex::Regex>>> = OnceLock::new();
        let cache = CACHE.get_or_init(Mutex::default);
        let cached = |cache: &Mutex<HashMap<String, regex::Regex>>| {
            cache
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(pattern)
                .cloned()
        };
        if let Some(re) = cached(cache) {
            return Ok(re);
        }
        let re = kadmit_go::regexp::compile(pattern).map_err(|e| e.to_string())?;
        let mut cache = cache.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= CACHED_REGEXES {
            cache.clear();
        }
        cache.insert(pattern.to_string(), re.clone());
        Ok(re)
    }
}

fn table() -> &'static HashMap<&'static str, &'static FuncDef> {
    static TABLE: OnceLock<HashMap<&'static str, &'static FuncDef>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut map = HashMap::new();
        for t in [
            super::builtins::FUNCS,
            super::sprig_strings::FUNCS,
            super::sprig_words::FUNCS,
            super::sprig_lists::FUNCS,
            super::sprig_dicts::FUNCS,
            super::sprig_math::FUNCS,
            super::sprig_encoding::FUNCS,
            super::sprig_paths::FUNCS,
            super::semver::FUNCS,
        ] {
            for (name, def) in t {
                map.insert(*name, def);
            }
        }
        map
    })
}

/// The function called `name`, if templates may call it.
pub(crate) fn lookup(name: &str) -> Option<&'static FuncDef> {
    table().get(name).copied()
}

/// Why kadmit refuses a Sprig function: the end of the message `function "x" …`.
pub(crate) fn refusal(name: &str) -> Option<&'static str> {
    Some(match name {
        "now" | "ago" | "date" | "dateInZone" | "date_in_zone" | "dateModify" | "date_modify"
        | "mustDateModify" | "must_date_modify" | "htmlDate" | "htmlDateInZone" | "toDate"
        | "mustToDate" | "unixEpoch" => {
            "is not allowed: it reads the clock or the local time zone, so output would not be deterministic"
        }
        "randAlpha" | "randAlphaNum" | "randNumeric" | "randAscii" | "randInt" | "randBytes"
        | "randSeededNumeric"
        | "shuffle" | "uuidv4" => "is not allowed: it is random, so output would not be deterministic",
        "bcrypt" | "htpasswd" => {
            "is not allowed: it hashes with a random salt, so output would not be deterministic"
        }
        "genPrivateKey" | "genCA" | "genCAWithKey" | "genSelfSignedCert"
        | "genSelfSignedCertWithKey" | "genSignedCert" | "genSignedCertWithKey"
        | "buildCustomCert" => {
            "is not allowed: it generates keys or certificates, which kadmit does not do in templates"
        }
        "encryptAES" | "decryptAES" | "derivePassword" => {
            "is not allowed: kadmit does not do cryptography in templates"
        }
        "getHostByName" => {
            "is not allowed: it queries the network, so output would not be deterministic"
        }
        "urlParse" | "urlJoin" => "is not supported by kadmit",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_and_lookups() {
        assert!(refusal("now").unwrap().contains("clock"));
        assert!(refusal("uuidv4").unwrap().contains("random"));
        assert!(refusal("trim").is_none());
        assert!(lookup("trim").is_some());
        assert!(lookup("env").is_none());
        assert!(lookup("now").is_none());
        for name in [
            "now",
            "randAlphaNum",
            "getHostByName",
            "genCA",
            "htpasswd",
            "urlParse",
        ] {
            assert!(lookup(name).is_none(), "{name}");
            assert!(refusal(name).is_some(), "{name}");
        }
    }
}
