//! CEL's type conversions `int`, `uint`, `double`, `bool`, `duration` and `timestamp` as
//! cel-go v0.26 runs them (`common/types/*.go`, `ConvertToType`), with its error texts.
//!
//! cel-rust's own overloads parse strings with Rust's parsers and word their errors its
//! way (`string parse error: invalid digit found in string`, a debug dump for a bad
//! duration, `Type conversion error ...`). An environment cannot replace an overload, so
//! `compile` rewrites every call `int(x)` to `@int(x)` (and so on), and these functions
//! convert strings with the Go ports: `strconv.ParseInt`/`ParseUint` (base 10),
//! `ParseFloat`, `ParseBool`, `time.ParseDuration` and `time.Parse(time.RFC3339, s)`. A
//! string that does not parse is cel-go's `type conversion error from 'string' to 'int'`
//! (the target's CEL type name: `google.protobuf.Duration` for a duration); a time outside
//! years 1 to 9999 is `timestamp overflow`. Other arguments go to the standard library's
//! overload, whose texts are already cel-go's (`integer overflow`, `unsigned integer
//! overflow`, `invalid UTF-8 in bytes, cannot convert to string`).

use super::env::{call_global, env};
use cel::common::types::{CelBool, CelDouble, CelInt, CelString, CelUInt, DYN_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError};
use kadmit_go::strconv::{self, FloatSyntax};

/// The internal `timestamp()`, which compiling also calls to check literal arguments.
pub const TIMESTAMP: &str = "@timestamp";

/// The smallest and largest `Unix()` seconds of a CEL timestamp (years 1 to 9999).
const MIN_UNIX: i64 = -62_135_596_800;
const MAX_UNIX: i64 = 253_402_300_799;

/// A conversion function kadmit replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Int,
    Uint,
    Double,
    Bool,
    Duration,
    Timestamp,
}

const TARGETS: [Target; 6] = [
    Target::Int,
    Target::Uint,
    Target::Double,
    Target::Bool,
    Target::Duration,
    Target::Timestamp,
];

impl Target {
    /// The function's name in CEL.
    fn name(self) -> &'static str {
        match self {
            Target::Int => "int",
            Target::Uint => "uint",
            Target::Double => "double",
            Target::Bool => "bool",
            Target::Duration => "duration",
            Target::Timestamp => "timestamp",
        }
    }

    /// The internal function a call is rewritten to.
    fn internal(self) -> &'static str {
        match self {
            Target::Int => "@int",
            Target::Uint => "@uint",
            Target::Double => "@double",
            Target::Bool => "@bool",
            Target::Duration => "@duration",
            Target::Timestamp => TIMESTAMP,
        }
    }

    /// The type name cel-go prints (`Type.String()`).
    fn type_name(self) -> &'static str {
        match self {
            Target::Duration => "google.protobuf.Duration",
            Target::Timestamp => "google.protobuf.Timestamp",
            other => other.name(),
        }
    }
}

/// The internal function a global call of `name` with one argument is rewritten to, for
/// the conversions kadmit replaces.
pub fn internal_name(name: &str) -> Option<&'static str> {
    TARGETS
        .into_iter()
        .find(|t| t.name() == name)
        .map(Target::internal)
}

/// Whether `name` is one of cel-go's type conversion functions
/// (`overloads.IsTypeConversionFunction`), under its own or its internal name.
pub fn is_conversion(name: &str) -> bool {
    let name = name.strip_prefix('@').unwrap_or(name);
    matches!(
        name,
        "bool"
            | "bytes"
            | "double"
            | "duration"
            | "dyn"
            | "int"
            | "string"
            | "timestamp"
            | "type"
            | "uint"
    )
}

/// Declares the internal conversion functions.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_overload("@int", "@int", vec![DYN_TYPE], int)?;
    env.add_overload("@uint", "@uint", vec![DYN_TYPE], uint)?;
    env.add_overload("@double", "@double", vec![DYN_TYPE], double)?;
    env.add_overload("@bool", "@bool", vec![DYN_TYPE], bool_)?;
    env.add_overload("@duration", "@duration", vec![DYN_TYPE], duration)?;
    env.add_overload(TIMESTAMP, TIMESTAMP, vec![DYN_TYPE], timestamp)?;
    Ok(())
}

type Out<'b, 'v> = Result<CowVal<'b, 'v>, ExecutionError>;

fn int<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    convert(Target::Int, args)
}

fn uint<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    convert(Target::Uint, args)
}

fn double<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    convert(Target::Double, args)
}

fn bool_<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    convert(Target::Bool, args)
}

fn duration<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    convert(Target::Duration, args)
}

fn timestamp<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    convert(Target::Timestamp, args)
}

fn convert<'b, 'v>(target: Target, args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    if let Some(s) = args.first().and_then(|a| a.downcast_ref::<CelString>()) {
        return from_string(target, s.inner()).map(CowVal::Owned);
    }
    if target == Target::Timestamp {
        // `Int.ConvertToType(TimestampType)`: cel-go's text for a second out of range.
        let seconds = args.first().and_then(|a| a.downcast_ref::<CelInt>());
        if seconds.is_some_and(|s| !(MIN_UNIX..=MAX_UNIX).contains(s.inner())) {
            return Err(overflow());
        }
    }
    let name = target.name();
    let Some(f) = env().find_overload(name, &args) else {
        let types = args
            .iter()
            .map(|a| a.get_type().name().to_owned())
            .collect();
        return Err(ExecutionError::no_such_overload(name, types));
    };
    f(args)
}

fn overflow() -> ExecutionError {
    ExecutionError::function_error("timestamp", "timestamp overflow")
}

/// `String.ConvertToType(target)`.
fn from_string(target: Target, s: &str) -> Result<Box<dyn Val>, ExecutionError> {
    let value: Option<Box<dyn Val>> = match target {
        Target::Int => strconv::parse_int(s, 10).map(|n| Box::new(CelInt::from(n)) as _),
        Target::Uint => strconv::parse_uint(s, 10).map(|n| Box::new(CelUInt::from(n)) as _),
        Target::Double => {
            strconv::parse_float(s, FloatSyntax::Go).map(|f| Box::new(CelDouble::from(f)) as _)
        }
        Target::Bool => strconv::parse_bool(s).map(|b| Box::new(CelBool::from(b)) as _),
        Target::Duration => kadmit_go::time::parse_duration(s).and_then(duration_from_nanos),
        Target::Timestamp => match kadmit_go::time::parse(kadmit_go::time::RFC3339, s) {
            Ok(t) if !(MIN_UNIX..=MAX_UNIX).contains(&t.unix) => return Err(overflow()),
            Ok(t) => timestamp_from_time(&t),
            Err(_) => None,
        },
    };
    value.ok_or_else(|| {
        ExecutionError::function_error(
            target.name(),
            format!(
                "type conversion error from 'string' to '{}'",
                target.type_name()
            ),
        )
    })
}

/// The CEL duration of `ns` nanoseconds, built by the standard library's `duration()`
/// from a spelling it reads exactly (hours, minutes, seconds and nanoseconds, each a
/// whole number a double holds exactly).
pub fn duration_from_nanos(ns: i64) -> Option<Box<dyn Val>> {
    const NS_PER_HOUR: u64 = 3_600_000_000_000;
    const NS_PER_MINUTE: u64 = 60_000_000_000;
    const NS_PER_SECOND: u64 = 1_000_000_000;
    let abs = ns.unsigned_abs();
    let sign = if ns < 0 { "-" } else { "" };
    let text = format!(
        "{sign}{}h{}m{}s{}ns",
        abs / NS_PER_HOUR,
        abs % NS_PER_HOUR / NS_PER_MINUTE,
        abs % NS_PER_MINUTE / NS_PER_SECOND,
        abs % NS_PER_SECOND
    );
    call_global("duration", vec![Box::new(CelString::from(text))]).ok()
}

/// The CEL timestamp of a parsed Go time, built by the standard library's `timestamp()`
/// from its RFC 3339 form; in UTC when the offset is one the standard library refuses.
fn timestamp_from_time(t: &kadmit_go::time::Time) -> Option<Box<dyn Val>> {
    let build = |t: &kadmit_go::time::Time| {
        call_global(
            "timestamp",
            vec![Box::new(CelString::from(t.format_rfc3339_nano()))],
        )
        .ok()
    };
    build(t).or_else(|| {
        build(&kadmit_go::time::Time {
            offset: 0,
            ..t.clone()
        })
    })
}
