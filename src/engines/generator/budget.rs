//! Limits on one render of a generator (its templates for one virtual resource), so that
//! a template from a pull request cannot hang kadmit or exhaust its memory. Tera 2 has no
//! step hook, so [`super::instrument`] rewrites each template to call the functions
//! registered here, the output goes through a capped writer, and the Tera filters whose
//! result can be far larger than their input are replaced by versions that check the size
//! first. A render stops with an error when it passes:
//!
//! - [`MAX_STEPS`] steps: loop and comprehension iterations (paid for when the loop
//!   starts), elements `range()` makes, comparisons `unique` makes, budget calls;
//! - [`MAX_OUTPUT`] bytes of output (all its templates together);
//! - [`MAX_VALUE`] bytes in one value it prints, stores, puts in a list or map, or makes
//!   with `replace`, `join`, `indent`, `str`, `to_yaml`, `to_json`, `quote` or `b64encode`;
//! - [`MAX_TEXT`] bytes of text and values made (loop bodies' text times their
//!   iterations, values printed, stored or put in lists and maps);
//! - [`MAX_TIME`] of wall-clock time, a backstop for work the counts above do not see
//!   (such as sorting a large list in every iteration of a loop).
//!
//! The first four are counts, so the same input fails the same way everywhere; the steps
//! and the output size match the Go-template engine's ([`kadmit_gotmpl::MAX_STEPS`]),
//! the output is larger ([`MAX_OUTPUT`] says why).

use std::io;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tera::value::ValueKind;
use tera::{Error, Kwargs, State, StringInput, Tera, TeraResult, Value};

/// Most steps one render may take (the Go-template engine's limit).
pub const MAX_STEPS: u64 = 1_000_000;
/// Most bytes one render may write. Larger than the Go-template engine's 1 MiB, which
/// bounds one field: a generator writes whole objects, and a ConfigMap or Secret at the
/// API server's limit (1 MiB of data, base64 in `binaryData`) is already more than 1 MiB
/// of YAML.
pub const MAX_OUTPUT: usize = 4 << 20;
/// Most bytes of one value (as Tera would print it).
pub const MAX_VALUE: usize = MAX_OUTPUT;
/// Most bytes of text and values one render may make (the Go-template engine's limit on
/// the strings of one execution).
pub const MAX_TEXT: u64 = 64 << 20;
/// Most wall-clock time one render may take.
pub const MAX_TIME: Duration = Duration::from_secs(10);

/// Tera's own limit on `range()`, kept.
const MAX_RANGE_LEN: i128 = 100_000;

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub steps: u64,
    pub output: usize,
    pub value: usize,
    pub text: u64,
    pub time: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            steps: MAX_STEPS,
            output: MAX_OUTPUT,
            value: MAX_VALUE,
            text: MAX_TEXT,
            time: MAX_TIME,
        }
    }
}

/// What the render in progress has used.
#[derive(Debug)]
pub struct Budget {
    limits: Limits,
    meter: Mutex<Meter>,
}

#[derive(Debug)]
struct Meter {
    steps: u64,
    text: u64,
    output: usize,
    started: Instant,
    /// The limit passed, once it is: every later call fails the same way.
    exceeded: Option<String>,
}

impl Budget {
    pub fn new(limits: Limits) -> Arc<Budget> {
        Arc::new(Budget {
            limits,
            meter: Mutex::new(Meter {
                steps: 0,
                text: 0,
                output: 0,
                started: Instant::now(),
                exceeded: None,
            }),
        })
    }

    fn meter(&self) -> MutexGuard<'_, Meter> {
        self.meter.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts a render with nothing used.
    pub fn start(&self) {
        let mut m = self.meter();
        *m = Meter {
            steps: 0,
            text: 0,
            output: 0,
            started: Instant::now(),
            exceeded: None,
        };
    }

    /// The limit the render passed, if it did.
    pub fn exceeded(&self) -> Option<String> {
        self.meter().exceeded.clone()
    }

    /// Adds `steps` and `text` bytes; an error names the limit passed.
    pub fn charge(&self, steps: u64, text: u64) -> Result<(), String> {
        let limits = self.limits;
        let mut m = self.meter();
        if let Some(e) = &m.exceeded {
            return Err(e.clone());
        }
        m.steps = m.steps.saturating_add(steps);
        m.text = m.text.saturating_add(text);
        let exceeded = if m.steps > limits.steps {
            format!("template execution exceeded {} steps", limits.steps)
        } else if m.text > limits.text {
            format!(
                "template execution produced more than {} bytes of text and values",
                limits.text
            )
        } else if m.started.elapsed() > limits.time {
            format!(
                "template execution took longer than {}s",
                limits.time.as_secs_f64()
            )
        } else {
            return Ok(());
        };
        m.exceeded = Some(exceeded.clone());
        Err(exceeded)
    }

    fn output(&self, n: usize) -> Result<(), String> {
        {
            let limits = self.limits;
            let mut m = self.meter();
            m.output = m.output.saturating_add(n);
            if m.output > limits.output && m.exceeded.is_none() {
                let e = format!("template output exceeds {} bytes", limits.output);
                m.exceeded = Some(e.clone());
                return Err(e);
            }
        }
        self.charge(0, 0)
    }

    /// `value` if it prints to at most the value limit; its size.
    fn measure(&self, value: &Value) -> Result<u64, String> {
        let limit = self.limits.value;
        match size(value, limit) {
            Some(n) => Ok(n as u64),
            None => Err(too_large(limit)),
        }
    }
}

fn too_large(limit: usize) -> String {
    format!("a value is larger than {limit} bytes")
}

/// Checks that `value` prints to at most [`MAX_VALUE`] bytes: for filters whose result
/// may be several times their input (and so grow without bound when chained).
pub fn check_value(value: &Value) -> TeraResult<()> {
    match size(value, MAX_VALUE) {
        Some(_) => Ok(()),
        None => Err(Error::message(too_large(MAX_VALUE))),
    }
}

/// An upper bound of the bytes `value` prints to (strings in lists and maps print
/// quoted and escaped), plus 16 bytes per list or map entry for what it takes in memory;
/// `None` past `limit` (found without printing it).
fn size(value: &Value, limit: usize) -> Option<usize> {
    let mut total = 0usize;
    add_size(value, false, limit, &mut total)?;
    Some(total)
}

fn add_size(value: &Value, nested: bool, limit: usize, total: &mut usize) -> Option<()> {
    let n = match value.kind() {
        ValueKind::String => {
            let s = value.as_str().unwrap_or("");
            if nested {
                s.escape_debug().map(char::len_utf8).sum::<usize>() + 2
            } else {
                s.len()
            }
        }
        ValueKind::Array => {
            let items = value.as_array().unwrap_or(&[]);
            *total = total.checked_add(2 + 18 * items.len())?;
            for item in items {
                add_size(item, true, limit, total)?;
            }
            0
        }
        ValueKind::Map => {
            let map = value.as_map()?;
            *total = total.checked_add(2 + 20 * map.len())?;
            for (key, item) in map {
                *total += match key.as_str() {
                    Some(k) => k.escape_debug().map(char::len_utf8).sum::<usize>() + 2,
                    None => 40,
                };
                (*total <= limit).then_some(())?;
                add_size(item, true, limit, total)?;
            }
            0
        }
        ValueKind::Bytes => 3 * value.as_bytes().map_or(0, <[u8]>::len),
        ValueKind::None | ValueKind::Undefined => 0,
        // Numbers and booleans: a few bytes.
        _ => value.to_string().len(),
    };
    *total = total.checked_add(n)?;
    (*total <= limit).then_some(())
}

/// The iterations of a `for` over `value`.
fn iterations(value: &Value) -> u64 {
    let n = match value.kind() {
        ValueKind::Array => value.as_array().map_or(0, <[Value]>::len),
        ValueKind::Map => value.as_map().map_or(0, |m| m.len()),
        ValueKind::String => value.as_str().map_or(0, |s| s.chars().count()),
        ValueKind::Bytes => value.as_bytes().map_or(0, <[u8]>::len),
        _ => 0,
    };
    n as u64
}

/// The render's output, refused past the limit.
pub struct Output<'a> {
    budget: &'a Budget,
    pub bytes: Vec<u8>,
}

impl<'a> Output<'a> {
    pub fn new(budget: &'a Budget) -> Output<'a> {
        Output {
            budget,
            bytes: Vec::new(),
        }
    }
}

impl io::Write for Output<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.budget.output(buf.len()).map_err(io::Error::other)?;
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Registers the budget functions the instrumented templates call, and the metered
/// `range`, `unique`, `replace`, `join`, `indent` and `str`.
pub fn register(tera: &mut Tera, budget: Arc<Budget>) {
    let b = budget.clone();
    tera.register_function(
        "__kadmit_loop",
        move |kwargs: Kwargs, _: &State| -> TeraResult<Value> {
            let value = kwargs.get::<Value>("v")?.unwrap_or_else(Value::undefined);
            let text = kwargs.get::<u64>("text")?.unwrap_or(0);
            let n = iterations(&value);
            b.charge(n.saturating_add(1), n.saturating_mul(text))
                .map_err(Error::message)?;
            Ok(value)
        },
    );
    let b = budget.clone();
    tera.register_function(
        "__kadmit_value",
        move |kwargs: Kwargs, _: &State| -> TeraResult<Value> {
            let value = kwargs.get::<Value>("v")?.unwrap_or_else(Value::undefined);
            let n = b.measure(&value).map_err(Error::message)?;
            b.charge(1, n).map_err(Error::message)?;
            Ok(value)
        },
    );
    let b = budget.clone();
    tera.register_function(
        "__kadmit_size",
        move |kwargs: Kwargs, _: &State| -> TeraResult<Value> {
            let value = kwargs.get::<Value>("v")?.unwrap_or_else(Value::undefined);
            let n = b.measure(&value).map_err(Error::message)?;
            b.charge(1, n).map_err(Error::message)?;
            Ok(Value::from(""))
        },
    );
    let b = budget.clone();
    tera.register_function(
        "__kadmit_step",
        move |kwargs: Kwargs, _: &State| -> TeraResult<Value> {
            let steps = kwargs.get::<u64>("steps")?.unwrap_or(1);
            let text = kwargs.get::<u64>("text")?.unwrap_or(0);
            b.charge(steps, text).map_err(Error::message)?;
            Ok(Value::from(""))
        },
    );
    let b = budget.clone();
    tera.register_filter(
        "__kadmit_check",
        move |value: &Value, _: Kwargs, _: &State| -> TeraResult<Value> {
            let n = b.measure(value).map_err(Error::message)?;
            b.charge(1, n).map_err(Error::message)?;
            Ok(value.clone())
        },
    );
    let b = budget.clone();
    tera.register_function("range", move |kwargs: Kwargs, _: &State| range(kwargs, &b));
    let b = budget.clone();
    tera.register_filter(
        "unique",
        move |items: &[Value], _: Kwargs, _: &State| -> TeraResult<Vec<Value>> {
            let mut out: Vec<Value> = Vec::with_capacity(items.len());
            for item in items {
                b.charge(out.len() as u64 + 1, 0).map_err(Error::message)?;
                if !out.contains(item) {
                    out.push(item.clone());
                }
            }
            Ok(out)
        },
    );
    let b = budget.clone();
    tera.register_filter(
        "replace",
        move |value: StringInput, kwargs: Kwargs, _: &State| -> TeraResult<Value> {
            let from = kwargs.must_get::<&str>("from")?;
            let to = kwargs.must_get::<StringInput>("to")?;
            let (s, to) = (value.as_str(), to.as_str());
            let count = if from.is_empty() {
                s.chars().count() + 1
            } else {
                s.matches(from).count()
            };
            let len = (s.len() - count * from.len()) as u128 + (count as u128) * to.len() as u128;
            b.made(len)?;
            Ok(Value::from(s.replace(from, to)))
        },
    );
    let b = budget.clone();
    tera.register_filter(
        "join",
        move |items: &[Value], kwargs: Kwargs, _: &State| -> TeraResult<Value> {
            let sep = kwargs.get::<StringInput>("sep")?;
            let sep = sep.as_ref().map_or("", StringInput::as_str);
            let mut len = (sep.len() * items.len().saturating_sub(1)) as u128;
            for item in items {
                len += b.measure(item).map_err(Error::message)? as u128;
                if len > b.limits.value as u128 {
                    return Err(Error::message(too_large(b.limits.value)));
                }
            }
            b.made(len)?;
            let parts: Vec<String> = items.iter().map(|x| format!("{x}")).collect();
            Ok(Value::from(parts.join(sep)))
        },
    );
    let b = budget.clone();
    tera.register_filter(
        "indent",
        move |value: StringInput, kwargs: Kwargs, _: &State| -> TeraResult<Value> {
            indent(value.as_str(), &kwargs, &b)
        },
    );
    tera.register_filter("str", move |value: Value, _: Kwargs, _: &State| {
        budget.measure(&value).map_err(Error::message)?;
        Ok::<_, Error>(format!("{value}"))
    });
}

impl Budget {
    /// A filter is about to make a string of `len` bytes.
    fn made(&self, len: u128) -> TeraResult<()> {
        if len > self.limits.value as u128 {
            return Err(Error::message(too_large(self.limits.value)));
        }
        self.charge(1, len as u64).map_err(Error::message)
    }
}

/// Tera's `range(start=0, end, step_by=1)`, each element paid for before it is made.
fn range(kwargs: Kwargs, budget: &Budget) -> TeraResult<Vec<i128>> {
    let start = kwargs.get::<i128>("start")?.unwrap_or_default();
    let end = kwargs.must_get::<i128>("end")?;
    let step_by = kwargs.get::<i128>("step_by")?.unwrap_or(1);
    if start > end && step_by > 0 {
        return Err(Error::message(
            "Function `range` was called with a `start` argument greater than the `end` one",
        ));
    }
    if step_by == 0 {
        return Err(Error::message(
            "Function `range` was called with a `step_by` argument of 0",
        ));
    }
    let overflow =
        || Error::message("Function `range` was called with arguments that overflow i128");
    let len = if step_by > 0 {
        let span = end.checked_sub(start).ok_or_else(overflow)?;
        span.checked_add(step_by - 1).ok_or_else(overflow)? / step_by
    } else if start <= end {
        0
    } else {
        let step = step_by.checked_neg().ok_or_else(overflow)?;
        let span = start.checked_sub(end).ok_or_else(overflow)?;
        span.checked_add(step - 1).ok_or_else(overflow)? / step
    };
    if len > MAX_RANGE_LEN {
        return Err(Error::message(format!(
            "Function `range` would produce {len} elements, which exceeds the limit of {MAX_RANGE_LEN}"
        )));
    }
    budget.charge(len as u64 + 1, 0).map_err(Error::message)?;
    Ok((0..len).map(|i| start + i * step_by).collect())
}

/// Tera's `indent(width=4, indentation=" ", first=false, blank=false)` (kadmit never
/// escapes), its size checked first.
fn indent(value: &str, kwargs: &Kwargs, budget: &Budget) -> TeraResult<Value> {
    let width = kwargs.get::<usize>("width")?.unwrap_or(4).min(1000);
    let indentation = kwargs.get::<StringInput>("indentation")?;
    let first = kwargs.get::<bool>("first")?.unwrap_or(false);
    let blank = kwargs.get::<bool>("blank")?.unwrap_or(false);
    if let Some(i) = &indentation {
        if i.as_str().chars().count() != 1 {
            return Err(Error::message(
                "The `indentation` argument must contain exactly one character",
            ));
        }
    }
    let unit = indentation.as_ref().map_or(" ", StringInput::as_str);
    let lines = value.lines().count() as u128;
    budget.made(value.len() as u128 + (lines + 1) * (unit.len() * width) as u128)?;
    let pad = unit.repeat(width);
    let mut out = String::with_capacity(value.len() * 2);
    for (i, line) in value.lines().enumerate() {
        if i == 0 {
            if first {
                out.push_str(&pad);
            }
        } else {
            out.push('\n');
            if !line.is_empty() || blank {
                out.push_str(&pad);
            }
        }
        out.push_str(line);
    }
    if value.ends_with('\n') {
        out.push('\n');
    }
    Ok(Value::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sizes_bound_what_tera_prints() {
        for v in [
            json!("a\"b\\c\u{1}é"),
            json!(["x\"y", 1, 2.5, null, true, {"k\"": ["\u{7}"]}]),
            json!({"a": {"b": [1, "two", {"c": "d"}]}, "e": 1e300}),
        ] {
            let value = Value::from_serializable(&v);
            let printed = format!("{value}").len();
            let estimate = size(&value, usize::MAX).unwrap();
            assert!(printed <= estimate, "{v}: {printed} > {estimate}");
        }
        let big = Value::from_serializable(&vec!["x"; 100]);
        assert_eq!(size(&big, 100), None);
    }

    #[test]
    fn limits_are_sticky_and_named() {
        let budget = Budget::new(Limits {
            steps: 10,
            ..Limits::default()
        });
        budget.charge(10, 0).unwrap();
        let e = budget.charge(1, 0).unwrap_err();
        assert_eq!(e, "template execution exceeded 10 steps");
        assert_eq!(budget.charge(0, 0).unwrap_err(), e);
        budget.start();
        budget.charge(5, 0).unwrap();
        let slow = Budget::new(Limits {
            time: Duration::ZERO,
            ..Limits::default()
        });
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(
            slow.charge(1, 0).unwrap_err(),
            "template execution took longer than 0s"
        );
    }
}
