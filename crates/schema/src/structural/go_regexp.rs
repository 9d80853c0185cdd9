//! Whether a `pattern` compiles as Go RE2, and Go's `regexp.Compile` error text when it
//! does not (`error parsing regexp: <code>: `<fragment>``). The parse is the `regex`
//! crate's; its error kind and span are translated to Go's error code and fragment. Two
//! things Go rejects and the crate accepts are checked first: stacked repetition operators
//! (`a**`) and repeat counts above 1000.

use kadmit_go::regexp;

/// `None` when `pattern` compiles, else Go's error message.
pub fn compile_error(pattern: &str) -> Option<String> {
    if let Some(err) = go_only_error(pattern) {
        return Some(err);
    }
    let rust = regexp::compile(pattern).err()?;
    let detail = match ::regex::Regex::new(pattern) {
        Err(e) => e.to_string(),
        Ok(_) => rust.to_string(),
    };
    Some(translate(pattern, &detail))
}

fn go_error(code: &str, fragment: &str) -> String {
    format!("error parsing regexp: {code}: `{fragment}`")
}

/// Go's rejections the `regex` crate does not make, scanning outside character classes.
fn go_only_error(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    let mut in_class = false;
    let mut last_repeat: Option<usize> = None;
    while i < chars.len() {
        let start = i;
        let c = chars[i];
        let repeat_end = match c {
            '\\' => {
                i += 2;
                last_repeat = None;
                continue;
            }
            '[' if !in_class => {
                in_class = true;
                i += 1;
                if chars.get(i) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    i += 1;
                }
                last_repeat = None;
                continue;
            }
            ']' if in_class => {
                in_class = false;
                i += 1;
                continue;
            }
            _ if in_class => {
                i += 1;
                continue;
            }
            '*' | '+' | '?' => Some(i + 1),
            '{' => repeat_count_end(&chars, i),
            _ => None,
        };
        match repeat_end {
            Some(mut end) => {
                if c == '{' {
                    let body: String = chars[i + 1..end - 1].iter().collect();
                    if body
                        .split(',')
                        .any(|n| n.parse::<u32>().is_ok_and(|n| n > 1000))
                    {
                        return Some(go_error(
                            "invalid repeat count",
                            &chars[i..end].iter().collect::<String>(),
                        ));
                    }
                }
                if chars.get(end) == Some(&'?') {
                    end += 1;
                }
                if let Some(prev) = last_repeat {
                    return Some(go_error(
                        "invalid nested repetition operator",
                        &chars[prev..end].iter().collect::<String>(),
                    ));
                }
                last_repeat = Some(start);
                i = end;
            }
            None => {
                last_repeat = None;
                i += 1;
            }
        }
    }
    None
}

/// The end of a `{n}`, `{n,}` or `{n,m}` repeat starting at `open`, if it is one.
fn repeat_count_end(chars: &[char], open: usize) -> Option<usize> {
    let close = open + chars[open..].iter().position(|&c| c == '}')?;
    let body: String = chars[open + 1..close].iter().collect();
    let (min, max) = body.split_once(',').unwrap_or((&body, "0"));
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    (digits(min) && (max.is_empty() || digits(max))).then_some(close + 1)
}

/// Maps the `regex` crate's error (message and caret span) onto Go's code and fragment.
fn translate(pattern: &str, detail: &str) -> String {
    let message = detail
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("error: "))
        .unwrap_or(detail);
    let chars: Vec<char> = pattern.chars().collect();
    let span = caret_span(detail).filter(|&(s, e)| s <= e && e <= chars.len());
    let text = |(s, e): (usize, usize)| chars[s..e].iter().collect::<String>();
    let spanned = span.map(text).unwrap_or_default();
    let from_span_to_end = span
        .map(|(s, _)| text((s, chars.len())))
        .unwrap_or_default();
    match message {
        m if m.starts_with("repetition operator missing expression") => {
            let end = span.map_or(0, |(_, e)| e);
            let lazy = if chars.get(end) == Some(&'?') {
                "?"
            } else {
                ""
            };
            go_error(
                "missing argument to repetition operator",
                &format!("{spanned}{lazy}"),
            )
        }
        m if m.starts_with("unclosed group") => go_error("missing closing )", pattern),
        m if m.starts_with("unopened group") => go_error("unexpected )", pattern),
        m if m.starts_with("unclosed character class") => {
            go_error("missing closing ]", &from_span_to_end)
        }
        m if m.starts_with("invalid character class range")
            || m.starts_with("Unicode property") =>
        {
            go_error("invalid character class range", &spanned)
        }
        m if m.starts_with("incomplete escape sequence") => {
            go_error("trailing backslash at end of expression", "")
        }
        m if m.contains("escape sequence") || m.starts_with("backreferences") => {
            go_error("invalid escape sequence", &spanned)
        }
        m if m.starts_with("invalid repetition count")
            || m.starts_with("repetition quantifier") =>
        {
            go_error("invalid repeat count", &spanned)
        }
        m if m.contains("capture group name") => {
            let open = span.map_or(0, |(s, _)| {
                chars[..s].iter().rposition(|&c| c == '(').unwrap_or(0)
            });
            let close = span.map_or(chars.len(), |(_, e)| {
                chars[e.saturating_sub(1)..]
                    .iter()
                    .position(|&c| c == '>')
                    .map_or(chars.len(), |p| e.saturating_sub(1) + p + 1)
            });
            go_error("invalid named capture", &text((open, close)))
        }
        m if m.starts_with("look-around") || m.contains("flag") => {
            go_error("invalid or unsupported Perl syntax", &spanned)
        }
        m if m.contains("size limit") => go_error("expression too large", pattern),
        m if m.contains("nest") => go_error("expression nests too deeply", pattern),
        other => go_error(other, &spanned),
    }
}

/// The `(start, end)` character columns of the `^^^` line under a one-line pattern.
fn caret_span(detail: &str) -> Option<(usize, usize)> {
    let mut lines = detail.lines();
    lines.next()?;
    let _pattern_line = lines.next()?;
    let carets = lines.next()?;
    let start = carets.find('^')?;
    let len = carets[start..].chars().take_while(|&c| c == '^').count();
    Some((start.checked_sub(4)?, start - 4 + len))
}

#[cfg(test)]
mod tests {
    use super::compile_error;

    fn err(p: &str) -> String {
        compile_error(p).unwrap_or_else(|| panic!("{p:?} compiled"))
    }

    #[test]
    fn valid_patterns_compile() {
        for p in [
            r"^[a-z]+$",
            r"^\d{1,3}(\.\d+)?$",
            "a*?",
            "a??",
            "x{2}",
            r"\*\*",
            "[*+]{2}",
            "a{1000}",
            "",
        ] {
            assert_eq!(compile_error(p), None, "{p}");
        }
    }

    #[test]
    fn go_texts() {
        assert_eq!(
            err("+"),
            "error parsing regexp: missing argument to repetition operator: `+`"
        );
        assert_eq!(
            err("a|*"),
            "error parsing regexp: missing argument to repetition operator: `*`"
        );
        assert_eq!(err("a(b"), "error parsing regexp: missing closing ): `a(b`");
        assert_eq!(err("ab)"), "error parsing regexp: unexpected ): `ab)`");
        assert_eq!(
            err("x[ab"),
            "error parsing regexp: missing closing ]: `[ab`"
        );
        assert_eq!(
            err("[z-a]"),
            "error parsing regexp: invalid character class range: `z-a`"
        );
        assert_eq!(
            err(r"\q"),
            "error parsing regexp: invalid escape sequence: `\\q`"
        );
        assert_eq!(
            err(r"a\1"),
            "error parsing regexp: invalid escape sequence: `\\1`"
        );
        assert_eq!(
            err("ab\\"),
            "error parsing regexp: trailing backslash at end of expression: ``"
        );
        assert_eq!(
            err("x{2,1}"),
            "error parsing regexp: invalid repeat count: `{2,1}`"
        );
        assert_eq!(
            err("x{1001}"),
            "error parsing regexp: invalid repeat count: `{1001}`"
        );
        assert_eq!(
            err("a**"),
            "error parsing regexp: invalid nested repetition operator: `**`"
        );
        assert_eq!(
            err("a+*?"),
            "error parsing regexp: invalid nested repetition operator: `+*?`"
        );
        assert_eq!(
            err("(?=a)"),
            "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"
        );
        assert_eq!(
            err("(?P<>a)"),
            "error parsing regexp: invalid named capture: `(?P<>`"
        );
    }
}
