//! Go RE2 regular expressions on top of the `regex` crate. The syntax is the same family;
//! the difference that bites is that Go's `\w`, `\d`, `\s` and `\b` are ASCII-only while
//! Rust's are Unicode-aware, so they are rewritten to their ASCII forms here.

use regex::Regex;

/// Compiles `pattern` with Go's meaning of the Perl classes. Matching stays unanchored.
pub fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    Regex::new(&asciify(pattern))
}

fn asciify(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(x @ ('w' | 'W' | 'd' | 'D' | 's' | 'S' | 'b' | 'B')) if !in_class => {
                    out.push_str("(?-u:\\");
                    out.push(x);
                    out.push(')');
                }
                Some('d') => out.push_str("0-9"),
                Some('w') => out.push_str("0-9A-Za-z_"),
                Some('s') => out.push_str("\\t\\n\\f\\r "),
                Some(x) => {
                    out.push('\\');
                    out.push(x);
                }
                None => out.push('\\'),
            },
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().expect("peeked"));
                }
                if chars.peek() == Some(&']') {
                    out.push(chars.next().expect("peeked"));
                }
            }
            '[' if chars.peek() == Some(&':') => {
                out.push('[');
                for p in chars.by_ref() {
                    out.push(p);
                    if p == ']' {
                        break;
                    }
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl_classes_are_ascii_like_go() {
        let re = compile(r"^\w+$").unwrap();
        assert!(re.is_match("abc_1"));
        assert!(!re.is_match("äbc"));
        assert!(!compile(r"^\d$").unwrap().is_match("١"));
        assert!(compile(r"^[\d.]+$").unwrap().is_match("1.2"));
        assert!(!compile(r"^[\w]+$").unwrap().is_match("é"));
        assert!(compile(r"\w{2,}-[^ ]{3}e[[:lower:]]+?[[:xdigit:]]+")
            .unwrap()
            .is_match("my-namespace"));
        assert!(compile(r"\\w").unwrap().is_match("\\w"));
        assert!(compile(r"[]a]").unwrap().is_match("]"));
    }

    #[test]
    fn matching_is_unanchored() {
        assert!(compile("prod").unwrap().is_match("my-production"));
    }
}
