//! apimachinery's name checks (`IsDNS1035Label`, `IsDNS1123Subdomain`) with their texts.

/// `RegexError`: the message Kubernetes attaches to a failed name pattern (note the double
/// space Go's formatting leaves after the first example).
fn regex_error(msg: &str, pattern: &str, examples: &[&str]) -> String {
    let shown: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!(
        "{msg} (e.g. {}regex used for validation is '{pattern}')",
        shown.join(" or ")
    )
}

fn max_len_error(length: usize) -> String {
    format!("must be no more than {length} characters")
}

fn is_label(s: &str, first: impl Fn(u8) -> bool) -> bool {
    let b = s.as_bytes();
    let inner = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-';
    let last = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => first(f) && last(l) && b.iter().all(inner),
        _ => false,
    }
}

/// `IsDNS1035Label`: the problems with `value`, empty when it is a valid label.
pub fn dns1035_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !is_label(value, |c| c.is_ascii_lowercase()) {
        errs.push(regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
            "[a-z]([-a-z0-9]*[a-z0-9])?",
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// `IsDNS1123Subdomain`.
pub fn dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push(max_len_error(253));
    }
    let label = |l: &str| is_label(l, |c| c.is_ascii_lowercase() || c.is_ascii_digit());
    if !value.split('.').all(label) {
        errs.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
            &["example.com"],
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert!(dns1035_label("v1beta1").is_empty());
        assert_eq!(
            dns1035_label("1v"),
            vec!["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]
        );
        assert_eq!(
            dns1035_label(&"a".repeat(64)),
            vec!["must be no more than 63 characters"]
        );
        assert_eq!(dns1035_label("").len(), 1);
    }

    #[test]
    fn subdomains() {
        assert!(dns1123_subdomain("foos.example.com").is_empty());
        assert!(dns1123_subdomain("0.example").is_empty());
        assert_eq!(dns1123_subdomain("Foo.com").len(), 1);
        assert_eq!(dns1123_subdomain("a..b").len(), 1);
        assert!(dns1123_subdomain("example.com.")[0].contains("(e.g. 'example.com', regex used"));
    }
}
