//! apimachinery's name rules (`util/validation`, `api/validation`, `api/validation/path`)
//! with their exact messages. The checks work on bytes because Go's work on bytes: a
//! masked `generateName` may cut a multi-byte character.

const QUALIFIED_NAME_MESSAGE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MESSAGE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const DNS1123_LABEL_MESSAGE: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN_MESSAGE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_LABEL_MESSAGE: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/// `validation.IsQualifiedName`: an optional DNS-subdomain prefix and `/`, then a name of
/// at most 63 characters.
pub fn qualified_name_errors(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errors.push("prefix part must be non-empty".to_owned());
            } else {
                errors.extend(
                    dns1123_subdomain_errors(prefix)
                        .into_iter()
                        .map(|e| format!("prefix part {e}")),
                );
            }
            *name
        }
        _ => {
            errors.push(format!("a qualified name {QUALIFIED_NAME_MESSAGE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"));
            return errors;
        }
    };
    if name.is_empty() {
        errors.push("name part must be non-empty".to_owned());
    } else if name.len() > 63 {
        errors.push(format!("name part {}", max_len(63)));
    }
    if !is_qualified_name_part(name.as_bytes()) {
        errors.push(format!("name part {QUALIFIED_NAME_MESSAGE}"));
    }
    errors
}

/// `validation.IsValidLabelValue`.
pub fn label_value_errors(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push(max_len(63));
    }
    if !value.is_empty() && !is_qualified_name_part(value.as_bytes()) {
        errors.push(LABEL_VALUE_MESSAGE.to_owned());
    }
    errors
}

/// `validation.IsDNS1123Subdomain`.
pub fn dns1123_subdomain_errors(value: &str) -> Vec<String> {
    subdomain_errors(value.as_bytes())
}

/// `validation.IsDNS1123Label`.
pub fn dns1123_label_errors(value: &str) -> Vec<String> {
    label_errors(value.as_bytes())
}

/// `validation.IsDNS1035Label`.
pub fn dns1035_label_errors(value: &str) -> Vec<String> {
    let bytes = value.as_bytes();
    let mut errors = Vec::new();
    if bytes.len() > 63 {
        errors.push(max_len(63));
    }
    if !(bytes.first().is_some_and(u8::is_ascii_lowercase) && is_dns_label_tail(bytes)) {
        errors.push(DNS1035_LABEL_MESSAGE.to_owned());
    }
    errors
}

/// How `metadata.name` (`prefix == false`) or `metadata.generateName` (`true`) is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// `NameIsDNSSubdomain`: custom resources at the root.
    DnsSubdomain,
    /// `NameIsDNSLabel`: namespaces.
    DnsLabel,
    /// `path.ValidatePathSegmentName`: embedded resources, and the root once more after
    /// an otherwise valid create.
    PathSegment,
}

impl NameRule {
    pub fn errors(self, name: &str, prefix: bool) -> Vec<String> {
        match self {
            NameRule::DnsSubdomain if prefix => subdomain_errors(&mask_trailing_dash(name)),
            NameRule::DnsSubdomain => subdomain_errors(name.as_bytes()),
            NameRule::DnsLabel if prefix => label_errors(&mask_trailing_dash(name)),
            NameRule::DnsLabel => label_errors(name.as_bytes()),
            NameRule::PathSegment => path_segment_errors(name, prefix),
        }
    }
}

/// `schema.ParseGroupVersion`: `(group, version)`.
pub fn parse_group_version(gv: &str) -> Result<(&str, &str), String> {
    if gv.is_empty() || gv == "/" {
        return Ok(("", ""));
    }
    match gv.matches('/').count() {
        0 => Ok(("", gv)),
        1 => Ok(gv.split_once('/').expect("one slash")),
        _ => Err(format!("unexpected GroupVersion string: {gv}")),
    }
}

fn max_len(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// A generated name gets a suffix appended, so a trailing dash is acceptable; upstream
/// replaces the last two bytes with `a`.
fn mask_trailing_dash(name: &str) -> Vec<u8> {
    let bytes = name.as_bytes();
    if bytes.len() > 1 && bytes.ends_with(b"-") {
        let mut masked = bytes[..bytes.len() - 2].to_vec();
        masked.push(b'a');
        masked
    } else {
        bytes.to_vec()
    }
}

fn subdomain_errors(bytes: &[u8]) -> Vec<String> {
    let mut errors = Vec::new();
    if bytes.len() > 253 {
        errors.push(max_len(253));
    }
    if !is_subdomain(bytes) {
        errors.push(DNS1123_SUBDOMAIN_MESSAGE.to_owned());
    }
    errors
}

fn label_errors(bytes: &[u8]) -> Vec<String> {
    let mut errors = Vec::new();
    if bytes.len() > 63 {
        errors.push(max_len(63));
    }
    if !is_dns1123_label(bytes) {
        errors.push(if is_subdomain(bytes) {
            "must not contain dots".to_owned()
        } else {
            DNS1123_LABEL_MESSAGE.to_owned()
        });
    }
    errors
}

fn path_segment_errors(name: &str, prefix: bool) -> Vec<String> {
    if !prefix {
        if let Some(bad) = [".", ".."].into_iter().find(|bad| name == *bad) {
            return vec![format!("may not be '{bad}'")];
        }
    }
    ["/", "%"]
        .into_iter()
        .filter(|bad| name.contains(bad))
        .map(|bad| format!("may not contain '{bad}'"))
        .collect()
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn is_dns1123_label(bytes: &[u8]) -> bool {
    bytes
        .first()
        .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && is_dns_label_tail(bytes)
}

/// The rest of a DNS label after its first byte: `([-a-z0-9]*[a-z0-9])?`.
fn is_dns_label_tail(bytes: &[u8]) -> bool {
    let lower_alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    bytes.last().is_some_and(lower_alnum) && bytes.iter().all(|b| lower_alnum(b) || *b == b'-')
}

fn is_subdomain(bytes: &[u8]) -> bool {
    bytes.split(|b| *b == b'.').all(is_dns1123_label)
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn is_qualified_name_part(bytes: &[u8]) -> bool {
    bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualified_names() {
        assert!(qualified_name_errors("example.com/My_name-1").is_empty());
        assert_eq!(
            qualified_name_errors("/x"),
            ["prefix part must be non-empty"]
        );
        assert_eq!(
            qualified_name_errors("Ex.com/"),
            [
                format!("prefix part {DNS1123_SUBDOMAIN_MESSAGE}"),
                "name part must be non-empty".to_owned(),
                format!("name part {QUALIFIED_NAME_MESSAGE}"),
            ]
        );
        assert_eq!(
            qualified_name_errors("a/b/c"),
            [format!("a qualified name {QUALIFIED_NAME_MESSAGE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")]
        );
        assert_eq!(
            qualified_name_errors(&"a".repeat(64)),
            ["name part must be no more than 63 characters"]
        );
    }

    #[test]
    fn dns_labels_report_dots_separately() {
        assert_eq!(dns1123_label_errors("a.b"), ["must not contain dots"]);
        assert_eq!(dns1123_label_errors("A"), [DNS1123_LABEL_MESSAGE]);
        assert!(dns1035_label_errors("a-1").is_empty());
        assert_eq!(dns1035_label_errors("1a"), [DNS1035_LABEL_MESSAGE]);
    }

    #[test]
    fn generate_name_prefixes_may_end_in_a_dash() {
        assert!(NameRule::DnsSubdomain.errors("foo-", true).is_empty());
        assert_eq!(
            NameRule::DnsSubdomain.errors("foo-", false),
            [DNS1123_SUBDOMAIN_MESSAGE]
        );
        assert!(NameRule::DnsSubdomain.errors("-", true).len() == 1);
        assert!(NameRule::DnsLabel.errors("ns-", true).is_empty());
    }

    #[test]
    fn path_segments() {
        assert_eq!(
            NameRule::PathSegment.errors("..", false),
            ["may not be '..'"]
        );
        assert!(NameRule::PathSegment.errors("..", true).is_empty());
        assert_eq!(
            NameRule::PathSegment.errors("a/%", false),
            ["may not contain '/'", "may not contain '%'"]
        );
    }

    #[test]
    fn group_versions() {
        assert_eq!(parse_group_version("apps/v1"), Ok(("apps", "v1")));
        assert_eq!(parse_group_version("v1"), Ok(("", "v1")));
        assert_eq!(parse_group_version("/"), Ok(("", "")));
        assert_eq!(
            parse_group_version("a/b/c"),
            Err("unexpected GroupVersion string: a/b/c".to_owned())
        );
    }
}
