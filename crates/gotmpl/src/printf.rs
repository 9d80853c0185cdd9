//! Go's `fmt.Sprintf`: the format string's flags, widths, precisions (`*` from
//! arguments), argument indexes (`%[2]d`) and the notations for what does not fit
//! (`%!d(MISSING)`, `%!(EXTRA string=a)`, `%!(NOVERB)`, `%!v(BADINDEX)`).

use super::fmt::{finish, printer, Flags, Out};
use super::value::Value;

fn parse_num(s: &[u8], mut i: usize) -> (Option<usize>, usize) {
    let mut num: usize = 0;
    let mut is_num = false;
    while i < s.len() && s[i].is_ascii_digit() {
        if num > 1_000_000 {
            return (None, s.len());
        }
        num = num * 10 + usize::from(s[i] - b'0');
        is_num = true;
        i += 1;
    }
    (is_num.then_some(num), i)
}

/// `fmt.Sprintf(format, args...)`.
pub(crate) fn sprintf(format: &str, a: &[Value]) -> Out {
    let mut p = printer();
    let s = format.as_bytes();
    let end = s.len();
    let mut arg_num = 0usize;
    let mut reordered = false;
    let mut i = 0;
    'format: while i < end {
        let mut good_arg_num = true;
        let last = i;
        while i < end && s[i] != b'%' {
            i += 1;
        }
        if i > last {
            p.buf.push_str(&format[last..i]);
        }
        if i >= end {
            break;
        }
        i += 1;
        p.f = Flags::default();
        while i < end {
            match s[i] {
                b'#' => p.f.sharp = true,
                b'0' => p.f.zero = !p.f.minus,
                b'+' => p.f.plus = true,
                b'-' => {
                    p.f.minus = true;
                    p.f.zero = false;
                }
                b' ' => p.f.space = true,
                c => {
                    if c.is_ascii_lowercase() && arg_num < a.len() {
                        if c == b'v' {
                            p.f.sharp_v = p.f.sharp;
                            p.f.sharp = false;
                            p.f.plus_v = p.f.plus;
                            p.f.plus = false;
                        }
                        p.print_arg(&a[arg_num], c as char, 0);
                        arg_num += 1;
                        i += 1;
                        continue 'format;
                    }
                    break;
                }
            }
            i += 1;
        }
        let mut after_index;
        (arg_num, i, after_index) =
            arg_number(arg_num, s, i, a.len(), &mut reordered, &mut good_arg_num);
        if i < end && s[i] == b'*' {
            i += 1;
            let (w, ok, n) = int_from_arg(a, arg_num);
            arg_num = n;
            if !ok {
                p.buf.push_str("%!(BADWIDTH)");
            }
            if w < 0 {
                p.f.minus = true;
                p.f.zero = false;
            }
            p.f.wid = ok.then_some(w.unsigned_abs() as usize);
            after_index = false;
        } else {
            let (w, ni) = parse_num(s, i);
            p.f.wid = w;
            i = ni;
            if after_index && w.is_some() {
                good_arg_num = false;
            }
        }
        if i + 1 < end && s[i] == b'.' {
            i += 1;
            if after_index {
                good_arg_num = false;
            }
            (arg_num, i, after_index) =
                arg_number(arg_num, s, i, a.len(), &mut reordered, &mut good_arg_num);
            if i < end && s[i] == b'*' {
                i += 1;
                let (pr, ok, n) = int_from_arg(a, arg_num);
                arg_num = n;
                p.f.prec = (ok && pr >= 0).then_some(pr as usize);
                if !ok {
                    p.buf.push_str("%!(BADPREC)");
                }
                after_index = false;
            } else {
                let (pr, ni) = parse_num(s, i);
                i = ni;
                p.f.prec = Some(pr.unwrap_or(0));
            }
        }
        if !after_index {
            (arg_num, i, _) = arg_number(arg_num, s, i, a.len(), &mut reordered, &mut good_arg_num);
        }
        if i >= end {
            p.buf.push_str("%!(NOVERB)");
            break;
        }
        let verb = format[i..].chars().next().unwrap_or('%');
        i += verb.len_utf8();
        if verb == '%' {
            p.buf.push('%');
        } else if !good_arg_num {
            p.buf.push_str(&format!("%!{verb}(BADINDEX)"));
        } else if arg_num >= a.len() {
            p.buf.push_str(&format!("%!{verb}(MISSING)"));
        } else {
            if verb == 'v' {
                p.f.sharp_v = p.f.sharp;
                p.f.sharp = false;
                p.f.plus_v = p.f.plus;
                p.f.plus = false;
            }
            p.print_arg(&a[arg_num], verb, 0);
            arg_num += 1;
        }
    }
    if !reordered && arg_num < a.len() {
        p.f = Flags::default();
        p.buf.push_str("%!(EXTRA ");
        for (k, arg) in a[arg_num..].iter().enumerate() {
            if k > 0 {
                p.buf.push_str(", ");
            }
            if let Value::Nil = arg {
                p.buf.push_str("<nil>");
            } else {
                p.buf.push_str(arg.type_name());
                p.buf.push('=');
                p.print_arg(arg, 'v', 0);
            }
        }
        p.buf.push(')');
    }
    finish(p)
}

fn arg_number(
    arg_num: usize,
    s: &[u8],
    i: usize,
    num_args: usize,
    reordered: &mut bool,
    good: &mut bool,
) -> (usize, usize, bool) {
    if i >= s.len() || s[i] != b'[' {
        return (arg_num, i, false);
    }
    *reordered = true;
    let rest = &s[i..];
    let mut parsed = None;
    if rest.len() >= 3 {
        if let Some(close) = rest.iter().position(|&c| c == b']') {
            let (n, ni) = parse_num(rest, 1);
            parsed = Some(match n {
                Some(n) if ni == close => (n.checked_sub(1), close + 1, true),
                _ => (None, close + 1, false),
            });
        }
    }
    let (index, wid, ok) = parsed.unwrap_or((None, 1, false));
    if let Some(index) = index.filter(|&x| ok && x < num_args) {
        return (index, i + wid, true);
    }
    *good = false;
    (arg_num, i + wid, ok)
}

fn int_from_arg(a: &[Value], arg_num: usize) -> (i64, bool, usize) {
    if arg_num >= a.len() {
        return (0, false, arg_num);
    }
    let n = match &a[arg_num] {
        Value::Int(i) | Value::Int64(i) => Some(*i),
        Value::Uint(u, _) => i64::try_from(*u).ok(),
        _ => None,
    };
    match n {
        Some(n) if n.unsigned_abs() <= 1_000_000 => (n, true, arg_num + 1),
        _ => (0, false, arg_num + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pf(format: &str, args: &[Value]) -> String {
        sprintf(format, args).unwrap()
    }

    #[test]
    fn verbs_like_go() {
        let i = Value::Int(42);
        let f = Value::Float(1.23456);
        let s = Value::str("hi");
        assert_eq!(
            pf(
                "%d|%5d|%-5d|%05d|%+d|%x|%X|%o|%b|%#x",
                &[
                    i.clone(),
                    i.clone(),
                    i.clone(),
                    i.clone(),
                    i.clone(),
                    i.clone(),
                    i.clone(),
                    i.clone(),
                    i.clone(),
                    i.clone()
                ]
            ),
            "42|   42|42   |00042|+42|2a|2A|52|101010|0x2a"
        );
        assert_eq!(
            pf(
                "%.2f|%8.3f|%e|%g|%v",
                &[f.clone(), f.clone(), f.clone(), f.clone(), f.clone()]
            ),
            "1.23|   1.235|1.234560e+00|1.23456|1.23456"
        );
        assert_eq!(
            pf(
                "%s|%q|%10s|%-4s|%x|%.1s",
                &[
                    s.clone(),
                    s.clone(),
                    s.clone(),
                    s.clone(),
                    s.clone(),
                    s.clone()
                ]
            ),
            "hi|\"hi\"|        hi|hi  |6869|h"
        );
        assert_eq!(
            pf("%t %v", &[Value::Bool(true), Value::Bool(false)]),
            "true false"
        );
        assert_eq!(
            pf(
                "%c %q %U",
                &[Value::Int(65), Value::Int(65), Value::Int(65)]
            ),
            "A 'A' U+0041"
        );
        assert_eq!(pf("100%%", &[]), "100%");
    }

    #[test]
    fn errors_like_go() {
        assert_eq!(pf("%d", &[Value::str("x")]), "%!d(string=x)");
        assert_eq!(pf("%d %d", &[Value::Int(1)]), "1 %!d(MISSING)");
        assert_eq!(
            pf("%d", &[Value::Int(1), Value::str("a")]),
            "1%!(EXTRA string=a)"
        );
        assert_eq!(pf("%s", &[Value::Float(1.0)]), "%!s(float64=1)");
        assert_eq!(pf("%d", &[Value::Nil]), "%!d(<nil>)");
        assert_eq!(pf("%v", &[Value::Nil]), "<nil>");
        assert_eq!(pf("%", &[]), "%!(NOVERB)");
        assert_eq!(pf("%[2]d %[1]d", &[Value::Int(1), Value::Int(2)]), "2 1");
        assert_eq!(pf("%[3]d", &[Value::Int(1)]), "%!d(BADINDEX)");
        assert_eq!(pf("%*d", &[Value::Int(4), Value::Int(7)]), "   7");
        assert_eq!(pf("%z", &[Value::Int(1)]), "%!z(int=1)");
    }
}
