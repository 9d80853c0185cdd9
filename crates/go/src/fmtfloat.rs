//! `strconv.FormatFloat(f, fmt, prec, 64)` for every format Go's `fmt` uses: `e E f g G`
//! (shortest or with a precision, rounding half to even on the exact value as Go does),
//! `b` and `x X`.

/// Go's `strconv.FormatFloat(f, fmt, prec, 64)`; `prec < 0` means shortest.
pub fn format_float(f: f64, fmt: char, prec: i32) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    let neg = f.is_sign_negative();
    let sign = if neg { "-" } else { "" };
    let a = f.abs();
    match fmt {
        'b' => {
            let bits = f.to_bits();
            let mut exp = ((bits >> 52) & 0x7ff) as i64;
            let mut mant = bits & ((1u64 << 52) - 1);
            if exp == 0 {
                exp = 1;
            } else {
                mant |= 1u64 << 52;
            }
            exp -= 1023 + 52;
            let plus = if exp >= 0 { "+" } else { "" };
            format!("{sign}{mant}p{plus}{exp}")
        }
        'x' | 'X' => hex(f, prec, fmt),
        'e' | 'E' if prec >= 0 => {
            let s = format!("{a:.p$e}", p = prec as usize);
            let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
            let exp: i32 = exp.parse().unwrap_or(0);
            format!("{sign}{mant}{}", exponent(fmt, exp))
        }
        'f' | 'F' if prec >= 0 => format!("{sign}{a:.p$}", p = prec as usize),
        _ => {
            let shortest = prec < 0;
            let (digits, dp) = if shortest {
                decimal(a, None)
            } else if fmt == 'g' || fmt == 'G' {
                decimal(a, Some(prec.max(1) as usize))
            } else {
                decimal(a, None)
            };
            let nd = digits.len() as i32;
            let mut prec = prec;
            if shortest {
                prec = match fmt {
                    'e' | 'E' => nd - 1,
                    'f' | 'F' => (nd - dp).max(0),
                    _ => nd,
                };
            } else if prec == 0 {
                prec = 1;
            }
            let body = match fmt {
                'e' | 'E' => fmt_e(&digits, dp, prec, fmt),
                'f' | 'F' => fmt_f(&digits, dp, prec),
                _ => {
                    let mut eprec = prec;
                    if eprec > nd && nd >= dp {
                        eprec = nd;
                    }
                    if shortest {
                        eprec = 6;
                    }
                    let exp = dp - 1;
                    if exp < -4 || exp >= eprec {
                        let p = prec.min(nd);
                        fmt_e(&digits, dp, p - 1, if fmt == 'g' { 'e' } else { 'E' })
                    } else {
                        let p = if prec > dp { nd } else { prec };
                        fmt_f(&digits, dp, (p - dp).max(0))
                    }
                }
            };
            format!("{sign}{body}")
        }
    }
}

/// The decimal digits of `a` (no trailing zeros) and the decimal point position, shortest
/// or rounded to `significant` digits.
fn decimal(a: f64, significant: Option<usize>) -> (Vec<u8>, i32) {
    if a == 0.0 {
        return (Vec::new(), 0);
    }
    let s = match significant {
        None => format!("{a:e}"),
        Some(n) => format!("{a:.p$e}", p = n - 1),
    };
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    if digits.is_empty() {
        return (Vec::new(), 0);
    }
    (digits, exp + 1)
}

fn exponent(fmt: char, exp: i32) -> String {
    let e = if fmt.is_ascii_uppercase() { 'E' } else { 'e' };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{e}{sign}{:02}", exp.abs())
}

fn fmt_e(digits: &[u8], dp: i32, prec: i32, fmt: char) -> String {
    let mut out = String::new();
    out.push(digits.first().map(|&d| d as char).unwrap_or('0'));
    if prec > 0 {
        out.push('.');
        for i in 1..=prec as usize {
            out.push(digits.get(i).map(|&d| d as char).unwrap_or('0'));
        }
    }
    let exp = if digits.is_empty() { 0 } else { dp - 1 };
    out.push_str(&exponent(fmt, exp));
    out
}

fn fmt_f(digits: &[u8], dp: i32, prec: i32) -> String {
    let mut out = String::new();
    if dp > 0 {
        for i in 0..dp as usize {
            out.push(digits.get(i).map(|&d| d as char).unwrap_or('0'));
        }
    } else {
        out.push('0');
    }
    if prec > 0 {
        out.push('.');
        for i in 1..=prec {
            let j = dp + i - 1;
            let c = if j >= 0 {
                digits.get(j as usize).map(|&d| d as char).unwrap_or('0')
            } else {
                '0'
            };
            out.push(c);
        }
    }
    out
}

/// Go's `%x` of a float64: `0x1.8p+01`.
fn hex(f: f64, prec: i32, fmt: char) -> String {
    let bits = f.to_bits();
    let neg = bits >> 63 != 0;
    let mut exp = ((bits >> 52) & 0x7ff) as i64;
    let mut mant = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        exp += 1;
    } else {
        mant |= 1u64 << 52;
    }
    exp -= 1023;
    if mant == 0 {
        exp = 0;
    }
    mant <<= 60 - 52;
    while mant != 0 && mant & (1 << 60) == 0 {
        mant <<= 1;
        exp -= 1;
    }
    if (0..15).contains(&prec) {
        let shift = (prec * 4) as u32;
        let extra = (mant << shift) & ((1u64 << 60) - 1);
        mant >>= 60 - shift;
        if extra | (mant & 1) > 1 << 59 {
            mant += 1;
        }
        mant <<= 60 - shift;
        if mant & (1 << 61) != 0 {
            mant >>= 1;
            exp += 1;
        }
    }
    let digits: &[u8] = if fmt == 'X' {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    out.push('0');
    out.push(fmt);
    out.push((b'0' + ((mant >> 60) & 1) as u8) as char);
    mant <<= 4;
    if prec < 0 && mant != 0 {
        out.push('.');
        while mant != 0 {
            out.push(digits[((mant >> 60) & 15) as usize] as char);
            mant <<= 4;
        }
    } else if prec > 0 {
        out.push('.');
        for _ in 0..prec {
            out.push(digits[((mant >> 60) & 15) as usize] as char);
            mant <<= 4;
        }
    }
    out.push(if fmt == 'X' { 'P' } else { 'p' });
    out.push(if exp < 0 { '-' } else { '+' });
    let e = exp.abs();
    if e < 100 {
        out.push_str(&format!("{e:02}"));
    } else {
        out.push_str(&e.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::format_float as ff;

    #[test]
    fn like_strconv() {
        assert_eq!(ff(1e6, 'g', -1), "1e+06");
        assert_eq!(ff(123456.0, 'g', -1), "123456");
        assert_eq!(ff(0.0001, 'g', -1), "0.0001");
        assert_eq!(ff(0.00001, 'g', -1), "1e-05");
        assert_eq!(ff(0.0, 'g', -1), "0");
        assert_eq!(ff(1.23456, 'f', 2), "1.23");
        assert_eq!(ff(0.125, 'f', 2), "0.12");
        assert_eq!(ff(2.5, 'f', 0), "2");
        assert_eq!(ff(1234.5678, 'e', 3), "1.235e+03");
        assert_eq!(ff(1234.5678, 'E', -1), "1.2345678E+03");
        assert_eq!(ff(1234.5678, 'g', 3), "1.23e+03");
        assert_eq!(ff(1.0, 'g', 3), "1");
        assert_eq!(ff(100.0, 'g', 3), "100");
        assert_eq!(ff(0.000012345, 'g', 2), "1.2e-05");
        assert_eq!(ff(-2.0, 'f', -1), "-2");
        assert_eq!(ff(0.0, 'e', -1), "0e+00");
        assert_eq!(ff(1.0, 'b', -1), "4503599627370496p-52");
        assert_eq!(ff(1.0, 'x', -1), "0x1p+00");
        assert_eq!(ff(3.0, 'x', -1), "0x1.8p+01");
        assert_eq!(ff(0.1, 'x', -1), "0x1.999999999999ap-04");
        assert_eq!(ff(f64::NAN, 'g', -1), "NaN");
        assert_eq!(ff(f64::NEG_INFINITY, 'f', 2), "-Inf");
        assert_eq!(ff(1e21, 'f', -1), "1000000000000000000000");
    }
}
