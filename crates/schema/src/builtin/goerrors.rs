//! The errors two Go parsers give when the decoder hands them a field's text:
//! `resource.ParseQuantity` (apimachinery `pkg/api/resource/quantity.go`, through
//! `Quantity.UnmarshalJSON`) and `base64.StdEncoding.Decode` (`[]byte` fields). Only
//! whether they fail and their message matter here, not the values.

const ERR_FORMAT_WRONG: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const ERR_NUMERIC: &str = "unable to parse numeric part of quantity";
const ERR_SUFFIX: &str = "unable to parse quantity's suffix";

/// `resource.ParseQuantity(s)`'s error, if any: the hand-written scanner of
/// `parseQuantityString`, then the suffix table, then the numeric parse.
pub fn quantity_error(s: &str) -> Option<&'static str> {
    if s.is_empty() {
        return Some(ERR_FORMAT_WRONG);
    }
    if s == "0" {
        return None;
    }
    let b = s.as_bytes();
    let digits = |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut pos = usize::from(matches!(b[0], b'+' | b'-'));
    // Leading zeros, then the numerator: all digits means a bare number.
    pos += b[pos..].iter().take_while(|&&c| c == b'0').count();
    let num_start = pos;
    pos = digits(pos);
    if pos == b.len() {
        return None;
    }
    let num_len = pos - num_start;
    let mut denom_len = 0;
    if b[pos] == b'.' {
        let start = pos + 1;
        pos = digits(start);
        denom_len = pos - start;
        if pos == b.len() {
            return None;
        }
    }
    let value_len = pos;
    let suffix_start = pos;
    pos += b[pos..]
        .iter()
        .take_while(|c| b"eEinumkKMGTP".contains(c))
        .count();
    if pos < b.len() {
        if matches!(b[pos], b'-' | b'+') {
            pos += 1;
        }
        if digits(pos) != b.len() {
            return Some(ERR_FORMAT_WRONG);
        }
    }
    let suffix = &s[suffix_start..];
    let (exponent, binary) = match suffix {
        "" => (0, false),
        "n" => (-9, false),
        "u" => (-6, false),
        "m" => (-3, false),
        "k" => (3, false),
        "M" => (6, false),
        "G" => (9, false),
        "T" => (12, false),
        "P" => (15, false),
        "E" => (18, false),
        "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei" => (0, true),
        e if e.len() > 1 && e.starts_with(['e', 'E']) => {
            match kadmit_go::strconv::parse_int(&e[1..], 10) {
                Some(v) => (v as i32, false),
                None => return Some(ERR_SUFFIX),
            }
        }
        _ => return Some(ERR_SUFFIX),
    };
    // The fast path parses numerator and denominator as one int64; the slow path an
    // inf.Dec from the text before the suffix, which needs a digit.
    let fast = if binary {
        denom_len == 0
    } else {
        18 - (num_len + denom_len) as i32 >= 0 && exponent - denom_len as i32 >= -9
    };
    if fast {
        let shifted = format!(
            "{}{}",
            &s[num_start..num_start + num_len],
            &s[value_len - denom_len..value_len]
        );
        if !shifted.is_empty() && kadmit_go::strconv::parse_int(&shifted, 10).is_none() {
            return Some(ERR_NUMERIC);
        }
        return None;
    }
    if !s[..value_len].bytes().any(|c| c.is_ascii_digit()) {
        return Some(ERR_NUMERIC);
    }
    None
}

/// `base64.StdEncoding.Decode`'s `CorruptInputError`, as `illegal base64 data at input
/// byte N`, when `s` is not padded standard base64 (`\r` and `\n` are skipped).
pub fn base64_error(s: &str) -> Option<String> {
    let src = s.as_bytes();
    let valid = |c: u8| c.is_ascii_alphanumeric() || c == b'+' || c == b'/';
    let newline = |c: u8| c == b'\n' || c == b'\r';
    let corrupt = |at: usize| Some(format!("illegal base64 data at input byte {at}"));
    let mut si = 0;
    // One quantum (`decodeQuantum`) per turn.
    while si < src.len() {
        let mut j = 0;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return None;
                }
                return corrupt(si - j);
            }
            let c = src[si];
            si += 1;
            if valid(c) {
                j += 1;
                continue;
            }
            if newline(c) {
                continue;
            }
            if c != b'=' || j < 2 {
                return corrupt(si - 1);
            }
            if j == 2 {
                while si < src.len() && newline(src[si]) {
                    si += 1;
                }
                if si == src.len() {
                    return corrupt(src.len());
                }
                if src[si] != b'=' {
                    return corrupt(si - 1);
                }
                si += 1;
            }
            while si < src.len() && newline(src[si]) {
                si += 1;
            }
            if si < src.len() {
                return corrupt(si);
            }
            return None;
        }
    }
    None
}
