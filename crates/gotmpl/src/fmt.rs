//! Go's `fmt` printing of template values (`Sprint`, `Sprintln`, and the verb
//! formatting behind `Sprintf`, see `printf.rs`): Go 1.18's output for every verb and
//! flag on the types templates have, including error notations like `%!d(string=x)`.
//! Output is bounded so that printing a huge value stops instead of growing without end.

use super::value::Value;
use super::MAX_OUTPUT;
use kadmit_go::fmtfloat::format_float;
use kadmit_go::strconv::{can_backquote, quote, quote_rune};

#[derive(Default, Clone, Copy)]
pub(crate) struct Flags {
    pub(crate) plus: bool,
    pub(crate) minus: bool,
    pub(crate) sharp: bool,
    pub(crate) space: bool,
    pub(crate) zero: bool,
    pub(crate) plus_v: bool,
    pub(crate) sharp_v: bool,
    pub(crate) wid: Option<usize>,
    pub(crate) prec: Option<usize>,
}

pub(crate) struct Printer {
    pub(crate) buf: String,
    pub(crate) f: Flags,
    overflow: bool,
}

pub(crate) type Out = Result<String, String>;

pub(crate) fn finish(p: Printer) -> Out {
    if p.overflow || p.buf.len() > MAX_OUTPUT {
        return Err(format!("formatted value is larger than {MAX_OUTPUT} bytes"));
    }
    Ok(p.buf)
}

pub(crate) fn printer() -> Printer {
    Printer {
        buf: String::new(),
        f: Flags::default(),
        overflow: false,
    }
}

/// `fmt.Sprint(v)`: Go's `%v`.
pub(crate) fn sprint_one(v: &Value) -> Out {
    let mut p = printer();
    p.print_arg(v, 'v', 0);
    finish(p)
}

/// `fmt.Sprint(args...)`: spaces between operands when neither is a string.
pub(crate) fn sprint(args: &[Value]) -> Out {
    let mut p = printer();
    let mut prev_string = false;
    for (i, a) in args.iter().enumerate() {
        let is_string = matches!(a, Value::Str(_));
        if i > 0 && !is_string && !prev_string {
            p.buf.push(' ');
        }
        p.print_arg(a, 'v', 0);
        prev_string = is_string;
    }
    finish(p)
}

/// `fmt.Sprintln(args...)`.
pub(crate) fn sprintln(args: &[Value]) -> Out {
    let mut p = printer();
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            p.buf.push(' ');
        }
        p.print_arg(a, 'v', 0);
    }
    p.buf.push('\n');
    finish(p)
}

impl Printer {
    pub(crate) fn pad(&mut self, s: &str) {
        let Some(wid) = self.f.wid.filter(|&w| w > 0) else {
            self.buf.push_str(s);
            return;
        };
        let n = wid.saturating_sub(s.chars().count());
        if self.f.minus {
            self.buf.push_str(s);
            self.buf.extend(std::iter::repeat_n(' ', n));
        } else {
            let c = if self.f.zero { '0' } else { ' ' };
            self.buf.extend(std::iter::repeat_n(c, n));
            self.buf.push_str(s);
        }
    }

    fn write_padding(&mut self, n: usize) {
        let c = if self.f.zero { '0' } else { ' ' };
        self.buf.extend(std::iter::repeat_n(c, n));
    }

    fn bad_verb(&mut self, verb: char, v: &Value) {
        self.buf.push_str("%!");
        self.buf.push(verb);
        self.buf.push('(');
        if let Value::Nil = v {
            self.buf.push_str("<nil>");
        } else {
            self.buf.push_str(v.type_name());
            self.buf.push('=');
            self.print_arg(v, 'v', 0);
        }
        self.buf.push(')');
    }

    pub(crate) fn print_arg(&mut self, v: &Value, verb: char, depth: usize) {
        if self.buf.len() > MAX_OUTPUT || depth > super::MAX_NESTING {
            self.overflow = true;
            return;
        }
        if verb == 'T' {
            self.pad(v.type_name());
            return;
        }
        match v {
            Value::Nil if depth > 0 => {
                if self.f.sharp_v {
                    self.buf.push_str("interface {}(nil)");
                } else {
                    self.buf.push_str("<nil>");
                }
            }
            Value::Nil => match verb {
                'v' => self.pad("<nil>"),
                _ => self.bad_verb(verb, v),
            },
            Value::Bool(b) => match verb {
                't' | 'v' => self.pad(if *b { "true" } else { "false" }),
                _ => self.bad_verb(verb, v),
            },
            Value::Int(i) | Value::Int64(i) => {
                self.fmt_integer(i.unsigned_abs(), *i < 0, true, verb, v)
            }
            Value::Uint(u, _) => self.fmt_integer(*u, false, false, verb, v),
            Value::Float(f) => self.fmt_float(*f, verb, v),
            Value::Str(s) => self.fmt_string(s, verb, v),
            Value::Version(ver) => match verb {
                'v' | 's' | 'x' | 'X' | 'q' => self.fmt_string(&ver.to_string(), verb, v),
                _ => self.bad_verb(verb, v),
            },
            Value::List(items, _) => {
                if self.f.sharp_v {
                    self.buf.push_str(v.type_name());
                    self.buf.push('{');
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            self.buf.push_str(", ");
                        }
                        self.print_arg(item, verb, depth + 1);
                    }
                    self.buf.push('}');
                    return;
                }
                self.buf.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.buf.push(' ');
                    }
                    self.print_arg(item, verb, depth + 1);
                }
                self.buf.push(']');
            }
            Value::Map(m, _) => {
                let entries = m.borrow().clone();
                if self.f.sharp_v {
                    self.buf.push_str(v.type_name());
                    self.buf.push('{');
                } else {
                    self.buf.push_str("map[");
                }
                for (i, (k, val)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.buf.push_str(if self.f.sharp_v { ", " } else { " " });
                    }
                    self.print_arg(&Value::str(k.as_str()), verb, depth + 1);
                    self.buf.push(':');
                    self.print_arg(val, verb, depth + 1);
                }
                self.buf.push(if self.f.sharp_v { '}' } else { ']' });
            }
        }
    }

    fn fmt_integer(&mut self, u: u64, negative: bool, signed: bool, verb: char, v: &Value) {
        let (base, upper) = match verb {
            'v' if self.f.sharp_v && !signed => {
                let saved = self.f.sharp;
                self.f.sharp = true;
                self.integer(u, negative, 16, false, 'v');
                self.f.sharp = saved;
                return;
            }
            'v' | 'd' => (10, false),
            'b' => (2, false),
            'o' | 'O' => (8, false),
            'x' => (16, false),
            'X' => (16, true),
            'c' => {
                let c = char::from_u32(u as u32).filter(|_| !negative && u <= 0x10FFFF);
                self.pad(&c.unwrap_or('\u{FFFD}').to_string());
                return;
            }
            'q' => {
                let r = if negative || u > 0x10FFFF {
                    0xFFFD
                } else {
                    u as i64
                };
                let c = char::from_u32(r as u32).unwrap_or('\u{FFFD}');
                if self.f.sharp && can_backquote(&c.to_string()) {
                    self.pad(&format!("'{c}'"));
                } else {
                    self.pad(&quote_rune(r, self.f.plus));
                }
                return;
            }
            'U' => {
                let mut s = format!("U+{u:04X}");
                if let Some(p) = self.f.prec {
                    let digits = format!("{u:X}");
                    if p > digits.len() {
                        s = format!("U+{}{digits}", "0".repeat(p - digits.len()));
                    }
                }
                if self.f.sharp {
                    if let Some(c) =
                        char::from_u32(u as u32).filter(|c| kadmit_go::strconv::is_print(*c))
                    {
                        s.push_str(&format!(" '{c}'"));
                    }
                }
                let saved = self.f.zero;
                self.f.zero = false;
                self.pad(&s);
                self.f.zero = saved;
                return;
            }
            _ => return self.bad_verb(verb, v),
        };
        self.integer(u, negative, base, upper, verb);
    }

    fn integer(&mut self, u: u64, negative: bool, base: u32, upper: bool, verb: char) {
        let mut prec = 0usize;
        if let Some(p) = self.f.prec {
            prec = p;
            if p == 0 && u == 0 {
                let saved = self.f.zero;
                self.f.zero = false;
                let w = self.f.wid.unwrap_or(0);
                self.write_padding(w);
                self.f.zero = saved;
                return;
            }
        } else if self.f.zero && self.f.wid.is_some() {
            prec = self.f.wid.unwrap_or(0);
            if negative || self.f.plus || self.f.space {
                prec = prec.saturating_sub(1);
            }
        }
        let mut digits = match base {
            2 => format!("{u:b}"),
            8 => format!("{u:o}"),
            16 if upper => format!("{u:X}"),
            16 => format!("{u:x}"),
            _ => u.to_string(),
        };
        if digits.len() < prec {
            digits = format!("{}{digits}", "0".repeat(prec - digits.len()));
        }
        let mut prefix = String::new();
        if self.f.sharp {
            match base {
                2 => prefix.push_str("0b"),
                8 if !digits.starts_with('0') => prefix.push('0'),
                16 => prefix.push_str(if upper { "0X" } else { "0x" }),
                _ => {}
            }
        }
        if verb == 'O' {
            prefix.insert_str(0, "0o");
        }
        let sign = if negative {
            "-"
        } else if self.f.plus {
            "+"
        } else if self.f.space {
            " "
        } else {
            ""
        };
        let saved = self.f.zero;
        self.f.zero = false;
        self.pad(&format!("{sign}{prefix}{digits}"));
        self.f.zero = saved;
    }

    fn fmt_float(&mut self, f: f64, verb: char, v: &Value) {
        let (verb, default_prec) = match verb {
            'v' => ('g', -1),
            'b' | 'g' | 'G' | 'x' | 'X' => (verb, -1),
            'f' | 'e' | 'E' => (verb, 6),
            'F' => ('f', 6),
            _ => return self.bad_verb(verb, v),
        };
        let prec = self.f.prec.map(|p| p as i32).unwrap_or(default_prec);
        let mut num = format_float(f, verb, prec);
        if !num.starts_with(['-', '+']) {
            num.insert(0, '+');
        }
        if self.f.space && num.starts_with('+') && !self.f.plus {
            num.replace_range(0..1, " ");
        }
        if num[1..].starts_with(['I', 'N']) {
            let saved = self.f.zero;
            self.f.zero = false;
            if num[1..].starts_with('N') && !self.f.space && !self.f.plus {
                num.remove(0);
            }
            self.pad(&num);
            self.f.zero = saved;
            return;
        }
        if self.f.sharp && verb != 'b' {
            num = sharp_float(num, verb, prec);
        }
        if self.f.plus || !num.starts_with('+') {
            if self.f.zero && self.f.wid.is_some_and(|w| w > num.len()) {
                let w = self.f.wid.unwrap_or(0);
                let (sign, rest) = num.split_at(1);
                self.buf.push_str(sign);
                self.write_padding(w - num.len());
                self.buf.push_str(rest);
                return;
            }
            self.pad(&num);
            return;
        }
        self.pad(&num[1..]);
    }

    fn fmt_string(&mut self, s: &str, verb: char, v: &Value) {
        let truncated: String;
        let s = match self.f.prec {
            Some(p) if verb != 'x' && verb != 'X' => {
                truncated = s.chars().take(p).collect();
                truncated.as_str()
            }
            _ => s,
        };
        match verb {
            'v' if self.f.sharp_v => self.pad(&quote(s, false)),
            'v' | 's' => self.pad(s),
            'q' => {
                if self.f.sharp && can_backquote(s) {
                    self.pad(&format!("`{s}`"));
                } else {
                    self.pad(&quote(s, self.f.plus));
                }
            }
            'x' | 'X' => self.hex_string(s.as_bytes(), verb == 'X'),
            _ => self.bad_verb(verb, v),
        }
    }

    fn hex_string(&mut self, b: &[u8], upper: bool) {
        let length = match self.f.prec {
            Some(p) if p < b.len() => p,
            _ => b.len(),
        };
        let x = if upper { 'X' } else { 'x' };
        let mut out = String::new();
        if length > 0 {
            if self.f.sharp {
                out.push('0');
                out.push(x);
            }
            for (i, c) in b[..length].iter().enumerate() {
                if self.f.space && i > 0 {
                    out.push(' ');
                    if self.f.sharp {
                        out.push('0');
                        out.push(x);
                    }
                }
                if upper {
                    out.push_str(&format!("{c:02X}"));
                } else {
                    out.push_str(&format!("{c:02x}"));
                }
            }
        }
        let w = self.f.wid.unwrap_or(0);
        let width = out.len();
        if !self.f.minus && w > width {
            self.write_padding(w - width);
        }
        self.buf.push_str(&out);
        if self.f.minus && w > width {
            self.write_padding(w - width);
        }
    }
}

/// The `#` flag on floats: keep the decimal point and trailing zeros.
fn sharp_float(mut num: String, verb: char, prec: i32) -> String {
    let mut digits: i64 = match verb {
        'v' | 'g' | 'G' | 'x' => {
            if prec == -1 {
                6
            } else {
                i64::from(prec)
            }
        }
        _ => 0,
    };
    let mut tail = String::new();
    let mut has_point = false;
    let mut saw_nonzero = false;
    let bytes: Vec<char> = num.chars().collect();
    let mut cut = bytes.len();
    for (i, &c) in bytes.iter().enumerate().skip(1) {
        match c {
            '.' => has_point = true,
            'p' | 'P' => {
                cut = i;
                break;
            }
            'e' | 'E' if verb != 'x' && verb != 'X' => {
                cut = i;
                break;
            }
            _ => {
                if c != '0' {
                    saw_nonzero = true;
                }
                if saw_nonzero {
                    digits -= 1;
                }
            }
        }
    }
    if cut < bytes.len() {
        tail = bytes[cut..].iter().collect();
        num = bytes[..cut].iter().collect();
    }
    if !has_point {
        if num.len() == 2 && num.ends_with('0') {
            digits -= 1;
        }
        num.push('.');
    }
    while digits > 0 {
        num.push('0');
        digits -= 1;
    }
    num.push_str(&tail);
    num
}

#[cfg(test)]
mod tests {
    use super::super::printf::sprintf;
    use super::*;
    use std::collections::BTreeMap;

    fn pf(format: &str, args: &[Value]) -> String {
        sprintf(format, args).unwrap()
    }

    #[test]
    fn composites_like_go() {
        let mut m = BTreeMap::new();
        m.insert("b".into(), Value::Float(1e6));
        m.insert("a".into(), Value::list(vec![Value::str("x"), Value::Nil]));
        let map = Value::map(m);
        assert_eq!(sprint_one(&map).unwrap(), "map[a:[x <nil>] b:1e+06]");
        assert_eq!(
            pf("%d", &[Value::list(vec![Value::Int(1), Value::str("a")])]),
            "[1 %!d(string=a)]"
        );
        assert_eq!(
            pf(
                "%#v",
                &[Value::list(vec![Value::str("a"), Value::Float(1.0)])]
            ),
            "[]interface {}{\"a\", 1}"
        );
        assert_eq!(
            sprint(&[Value::Int(1), Value::Int(2), Value::str("a"), Value::Int(3)]).unwrap(),
            "1 2a3"
        );
        assert_eq!(
            sprintln(&[Value::Int(1), Value::str("a")]).unwrap(),
            "1 a\n"
        );
        assert_eq!(
            pf(
                "%#g|%#.3f|%#v",
                &[Value::Float(1.0), Value::Float(2.0), Value::Float(1.0)]
            ),
            "1.00000|2.000|1"
        );
        assert_eq!(
            pf(
                "%08.3f|%+.1e|% d",
                &[Value::Float(-1.23456), Value::Float(12345.0), Value::Int(5)]
            ),
            "-001.235|+1.2e+04| 5"
        );
    }
}
