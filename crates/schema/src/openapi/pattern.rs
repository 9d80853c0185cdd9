//! `pattern`: a Go RE2 expression searched unanchored, compiled once per schema node.
//! A pattern Go cannot compile fails every string with Go's parser error text.

use regex::Regex;

pub(super) struct Pattern {
    pub source: String,
    /// The compiled expression, or Go's `error parsing regexp: ...` text.
    pub compiled: Result<Regex, String>,
}

impl Pattern {
    pub fn new(source: &str) -> Pattern {
        Pattern {
            source: source.to_owned(),
            compiled: kadmit_go::regexp::compile(source).map_err(|e| e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_syntax_and_errors() {
        assert_eq!(
            Pattern::new("a**").compiled.err().as_deref(),
            Some("error parsing regexp: invalid nested repetition operator: `**`")
        );
        for (src, yes, no) in [
            (r"^\Qa.b\E$", "a.b", "axb"),
            (r"^a{$", "a{", "a"),
            (r"^a\<b$", "a<b", "ab"),
        ] {
            let re = Pattern::new(src)
                .compiled
                .unwrap_or_else(|e| panic!("{src}: {e}"));
            assert!(re.is_match(yes), "{src} ~ {yes}");
            assert!(!re.is_match(no), "{src} !~ {no}");
        }
    }
}
