//! Sprig v3.2.2 encodings, hashes, JSON and regular expressions.

use super::funcs::{boxed, f, Args, Ctx, Table, P};
use super::json::{marshal, unmarshal};
use super::value::Value;
use kadmit_go::strconv::{can_backquote, quote};

type Res = Result<Value, String>;

pub(crate) const FUNCS: Table = &[
    (
        "b64enc",
        f(&[P::Str], |_, a| {
            Ok(Value::str(b64_encode(a.s(0).as_bytes())))
        }),
    ),
    (
        "b64dec",
        f(&[P::Str], |_, a| {
            Ok(Value::str(decoded(b64_decode(&a.s(0)))))
        }),
    ),
    (
        "b32enc",
        f(&[P::Str], |_, a| {
            Ok(Value::str(b32_encode(a.s(0).as_bytes())))
        }),
    ),
    (
        "b32dec",
        f(&[P::Str], |_, a| {
            Ok(Value::str(decoded(b32_decode(&a.s(0)))))
        }),
    ),
    (
        "sha1sum",
        f(&[P::Str], |_, a| {
            Ok(Value::str(hex(&super::hash::sha1(a.s(0).as_bytes()))))
        }),
    ),
    (
        "sha256sum",
        f(&[P::Str], |_, a| {
            Ok(Value::str(hex(&super::hash::sha256(a.s(0).as_bytes()))))
        }),
    ),
    (
        "adler32sum",
        f(&[P::Str], |_, a| {
            Ok(Value::str(
                super::hash::adler32(a.s(0).as_bytes()).to_string(),
            ))
        }),
    ),
    (
        "toJson",
        f(&[P::Any], |_, a| {
            Ok(Value::str(
                marshal(&a.v(0), true, false).unwrap_or_default(),
            ))
        }),
    ),
    (
        "toPrettyJson",
        f(&[P::Any], |_, a| {
            Ok(Value::str(marshal(&a.v(0), true, true).unwrap_or_default()))
        }),
    ),
    (
        "toRawJson",
        f(&[P::Any], |_, a| {
            Ok(Value::str(
                marshal(&a.v(0), false, false).unwrap_or_default(),
            ))
        }),
    ),
    (
        "mustToJson",
        f(&[P::Any], |_, a| {
            marshal(&a.v(0), true, false).map(Value::str)
        }),
    ),
    (
        "mustToPrettyJson",
        f(&[P::Any], |_, a| {
            marshal(&a.v(0), true, true).map(Value::str)
        }),
    ),
    (
        "mustToRawJson",
        f(&[P::Any], |_, a| {
            marshal(&a.v(0), false, false).map(Value::str)
        }),
    ),
    (
        "fromJson",
        boxed(f(&[P::Str], |_, a| {
            Ok(unmarshal(&a.s(0)).unwrap_or(Value::Nil))
        })),
    ),
    (
        "mustFromJson",
        boxed(f(&[P::Str], |_, a| unmarshal(&a.s(0)))),
    ),
    (
        "regexMatch",
        f(&[P::Str, P::Str], |c, a| {
            Ok(Value::Bool(
                c.regex(&a.s(0))
                    .map(|re| re.is_match(&a.s(1)))
                    .unwrap_or(false),
            ))
        }),
    ),
    (
        "mustRegexMatch",
        f(&[P::Str, P::Str], |c, a| {
            Ok(Value::Bool(c.regex(&a.s(0))?.is_match(&a.s(1))))
        }),
    ),
    (
        "regexFindAll",
        f(&[P::Str, P::Str, P::Int], |c, a| find_all(c, a, true)),
    ),
    (
        "mustRegexFindAll",
        f(&[P::Str, P::Str, P::Int], |c, a| find_all(c, a, false)),
    ),
    ("regexFind", f(&[P::Str, P::Str], |c, a| find(c, a, true))),
    (
        "mustRegexFind",
        f(&[P::Str, P::Str], |c, a| find(c, a, false)),
    ),
    (
        "regexReplaceAll",
        f(&[P::Str, P::Str, P::Str], |c, a| replace(c, a, true, true)),
    ),
    (
        "mustRegexReplaceAll",
        f(&[P::Str, P::Str, P::Str], |c, a| replace(c, a, false, true)),
    ),
    (
        "regexReplaceAllLiteral",
        f(&[P::Str, P::Str, P::Str], |c, a| replace(c, a, true, false)),
    ),
    (
        "mustRegexReplaceAllLiteral",
        f(&[P::Str, P::Str, P::Str], |c, a| {
            replace(c, a, false, false)
        }),
    ),
    (
        "regexSplit",
        f(&[P::Str, P::Str, P::Int], |c, a| split(c, a, true)),
    ),
    (
        "mustRegexSplit",
        f(&[P::Str, P::Str, P::Int], |c, a| split(c, a, false)),
    ),
    (
        "regexQuoteMeta",
        f(&[P::Str], |_, a| {
            Ok(Value::str(kadmit_go::regexp::quote_meta(&a.s(0))))
        }),
    ),
];

fn decoded(r: Result<Vec<u8>, String>) -> String {
    match r {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => e,
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

fn b64_encode(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len().div_ceil(3) * 4);
    for chunk in b.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &x)| acc | u32::from(x) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Go's `StdEncoding.DecodeString` for `bits`-bit alphabets (6: base64, 5: base32).
fn decode_with(s: &str, alphabet: &[u8], bits: u32, name: &str) -> Result<Vec<u8>, String> {
    let group = if bits == 6 { 4 } else { 8 };
    let chars: Vec<(usize, u8)> = s
        .bytes()
        .enumerate()
        .filter(|(_, c)| *c != b'\r' && *c != b'\n')
        .collect();
    let err = |i: usize| format!("illegal {name} data at input byte {i}");
    let mut out = Vec::new();
    let mut acc: u64 = 0;
    let mut nbits = 0u32;
    let mut pad_from: Option<usize> = None;
    for (k, &(i, c)) in chars.iter().enumerate() {
        if c == b'=' {
            if pad_from.is_none() {
                let pos = k % group;
                if pos < 2 {
                    return Err(err(i));
                }
                pad_from = Some(k);
            }
            continue;
        }
        if pad_from.is_some() {
            return Err(err(i));
        }
        let Some(v) = alphabet.iter().position(|&a| a == c) else {
            return Err(err(i));
        };
        acc = (acc << bits) | v as u64;
        nbits += bits;
        if nbits >= 8 {
            nbits -= 8;
            out.push((acc >> nbits) as u8);
            acc &= (1 << nbits) - 1;
        }
    }
    if !chars.len().is_multiple_of(group) {
        return Err(err(s.len()));
    }
    Ok(out)
}

fn b64_decode(s: &str) -> Result<Vec<u8>, String> {
    decode_with(s, B64, 6, "base64")
}

fn b32_encode(b: &[u8]) -> String {
    let mut out = String::new();
    for chunk in b.chunks(5) {
        let mut n: u64 = 0;
        for (i, &x) in chunk.iter().enumerate() {
            n |= u64::from(x) << (32 - 8 * i);
        }
        let used = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < used {
                out.push(B32[((n >> (35 - 5 * i)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn b32_decode(s: &str) -> Result<Vec<u8>, String> {
    decode_with(s, B32, 5, "base32")
}

fn regex_err(pattern: &str, e: String, must: bool) -> String {
    if must {
        return e;
    }
    let shown = if can_backquote(pattern) {
        format!("`{pattern}`")
    } else {
        quote(pattern, false)
    };
    format!("regexp: Compile({shown}): {e}")
}

fn compiled(c: &mut Ctx, pattern: &str, panics: bool) -> Result<regex::Regex, String> {
    c.regex(pattern).map_err(|e| regex_err(pattern, e, !panics))
}

fn find_all(c: &mut Ctx, a: &Args, panics: bool) -> Res {
    let re = compiled(c, &a.s(0), panics)?;
    let s = a.s(1);
    let n = a.i(2);
    let it = re.find_iter(&s).map(|m| m.as_str().to_string());
    let found: Vec<String> = if n < 0 {
        it.collect()
    } else {
        it.take(n as usize).collect()
    };
    Ok(Value::str_list(found))
}

fn find(c: &mut Ctx, a: &Args, panics: bool) -> Res {
    let re = compiled(c, &a.s(0), panics)?;
    let s = a.s(1);
    Ok(Value::str(re.find(&s).map(|m| m.as_str()).unwrap_or("")))
}

fn replace(c: &mut Ctx, a: &Args, panics: bool, expand: bool) -> Res {
    let re = compiled(c, &a.s(0), panics)?;
    let (s, repl) = (a.s(1), a.s(2));
    let out = if expand {
        re.replace_all(&s, repl.as_str())
    } else {
        re.replace_all(&s, regex::NoExpand(&repl))
    };
    c.check_size(out.len())?;
    Ok(Value::str(out.as_ref()))
}

/// Go's `Regexp.Split`.
fn split(c: &mut Ctx, a: &Args, panics: bool) -> Res {
    let pattern = a.s(0);
    let re = compiled(c, &pattern, panics)?;
    let (s, n) = (a.s(1), a.i(2));
    if n == 0 {
        return Ok(Value::str_list(Vec::new()));
    }
    if !pattern.is_empty() && s.is_empty() {
        return Ok(Value::str_list(vec![String::new()]));
    }
    let mut out = Vec::new();
    let (mut beg, mut end) = (0usize, 0usize);
    for m in re.find_iter(&s) {
        if n > 0 && out.len() as i64 == n - 1 {
            break;
        }
        end = m.start();
        if m.end() != 0 {
            out.push(s[beg..end].to_string());
        }
        beg = m.end();
    }
    if end != s.len() {
        out.push(s[beg..].to_string());
    }
    Ok(Value::str_list(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_round_trip() {
        assert_eq!(b64_encode(b"hello"), "aGVsbG8=");
        assert_eq!(b64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(
            b64_decode("aGVsbG8").unwrap_err(),
            "illegal base64 data at input byte 7"
        );
        assert_eq!(
            b64_decode("a$==").unwrap_err(),
            "illegal base64 data at input byte 1"
        );
        assert_eq!(b32_encode(b"hello"), "NBSWY3DP");
        assert_eq!(b32_encode(b"hi"), "NBUQ====");
        assert_eq!(b32_decode("NBUQ====").unwrap(), b"hi");
    }

    #[test]
    fn split_like_go() {
        let mut c = Ctx::default();
        let args = Args(vec![
            super::super::value::Slot::plain(Value::str(",")),
            super::super::value::Slot::plain(Value::str("a,b,,c")),
            super::super::value::Slot::plain(Value::Int(-1)),
        ]);
        let v = split(&mut c, &args, true).unwrap();
        assert_eq!(super::super::fmt::sprint_one(&v).unwrap(), "[a b  c]");
        assert_eq!(kadmit_go::regexp::quote_meta("a.b*c"), "a\\.b\\*c");
    }
}
