//! AssignImage's image references (`pkg/mutation/mutators/assignimage/imageparser.go`):
//! the split into domain, path and tag, and the validation of the parts a mutator assigns.
//! The split is deliberately cruder than docker's reference grammar; the validation keeps
//! assigned parts from leaking into their neighbours on the next split.

use kadmit_go::regexp;
use kadmit_go::strconv::quote;
use regex::Regex;
use std::fmt;
use std::sync::LazyLock;

static DOMAIN: LazyLock<Regex> =
    LazyLock::new(|| go_regexp(r"(^\w[\w\-_]*\.[\w\-_\.]*[\w](:\d+)?$)|(^localhost(:\d+)?$)"));
static PATH: LazyLock<Regex> =
    LazyLock::new(|| go_regexp(r"^[a-z0-9]+(?:(?:(?:[._/]|__|[-]*)[a-z0-9]+)+)?"));
static TAG: LazyLock<Regex> = LazyLock::new(|| {
    go_regexp(
        r"(^:[\w][\w.-]{0,127}$)|(^@[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}$)",
    )
});

fn go_regexp(pattern: &str) -> Regex {
    regexp::compile(pattern).expect("AssignImage patterns are valid")
}

/// An image reference in three parts; `tag` keeps its leading `:` or `@`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Image {
    pub domain: String,
    pub path: String,
    pub tag: String,
}

/// Splits a reference the way Gatekeeper's `newImage` does; every string parses.
pub fn parse(reference: &str) -> Image {
    let (domain, remainder) = split_domain(reference);
    let (path, tag) = match remainder.find([':', '@']) {
        Some(at) => remainder.split_at(at),
        None => (remainder, ""),
    };
    Image {
        domain: domain.to_owned(),
        path: path.to_owned(),
        tag: tag.to_owned(),
    }
}

/// The text before the first `/` is a domain only if it has a `.` or `:` or is `localhost`.
fn split_domain(name: &str) -> (&str, &str) {
    match name.split_once('/') {
        Some((first, rest)) if first.contains(['.', ':']) || first == "localhost" => (first, rest),
        _ => ("", name),
    }
}

impl Image {
    /// This image with each non-empty argument replacing its component.
    pub fn assign(&self, domain: &str, path: &str, tag: &str) -> Image {
        let pick = |old: &str, new: &str| if new.is_empty() { old } else { new }.to_owned();
        Image {
            domain: pick(&self.domain, domain),
            path: pick(&self.path, path),
            tag: pick(&self.tag, tag),
        }
    }
}

impl fmt::Display for Image {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.domain.is_empty() {
            write!(f, "{}/", self.domain)?;
        }
        write!(f, "{}{}", self.path, self.tag)
    }
}

/// Gatekeeper's error types for invalid AssignImage parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageErrorKind {
    MissingComponents,
    InvalidDomain,
    InvalidPath,
    InvalidTag,
    DomainLikePath,
}

impl ImageErrorKind {
    /// The Go type name (`invalidDomainError`, ...).
    pub fn go_name(self) -> &'static str {
        match self {
            ImageErrorKind::MissingComponents => "missingComponentsError",
            ImageErrorKind::InvalidDomain => "invalidDomainError",
            ImageErrorKind::InvalidPath => "invalidPathError",
            ImageErrorKind::InvalidTag => "invalidTagError",
            ImageErrorKind::DomainLikePath => "domainLikePathError",
        }
    }
}

/// Invalid `assignDomain`/`assignPath`/`assignTag`; `message` is Gatekeeper's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageError {
    pub kind: ImageErrorKind,
    pub message: String,
}

impl fmt::Display for ImageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ImageError {}

/// Gatekeeper's `validateImageParts`: `""` means unset, and the first failing check wins.
pub fn validate_parts(domain: &str, path: &str, tag: &str) -> Result<(), ImageError> {
    let fail = |kind, message: String| Err(ImageError { kind, message });
    if domain.is_empty() && path.is_empty() && tag.is_empty() {
        return fail(
            ImageErrorKind::MissingComponents,
            "at least one of [assignDomain, assignPath, assignTag] must be set".into(),
        );
    }
    if !domain.is_empty() && !DOMAIN.is_match(domain) {
        return fail(
            ImageErrorKind::InvalidDomain,
            format!(
                "assignDomain {} must be a fully-qualified domain name or localhost",
                quote(domain, false)
            ),
        );
    }
    if !path.is_empty() && PATH.find(path).map(|m| m.as_str()) != Some(path) {
        return fail(
            ImageErrorKind::InvalidPath,
            format!(
                "assignPath {} must be a valid docker image path",
                quote(path, false)
            ),
        );
    }
    if !tag.is_empty() && !TAG.is_match(tag) {
        return fail(
            ImageErrorKind::InvalidTag,
            format!(
                "assignTag {} must be a valid docker image tag or digest starting with ':' or '@'",
                quote(tag, false)
            ),
        );
    }
    if domain.is_empty() && !split_domain(path).0.is_empty() {
        return fail(
            ImageErrorKind::DomainLikePath,
            format!(
                "assignDomain must be set if the first part of assignPath {} can be interpretted as part of a domain",
                quote(path, false)
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(domain: &str, path: &str, tag: &str) -> Option<ImageErrorKind> {
        validate_parts(domain, path, tag).err().map(|e| e.kind)
    }

    #[test]
    fn assigning_keeps_unset_parts_and_rebuilds_the_reference() {
        let img = parse("gcr.io/some-image/hello:latest");
        assert_eq!(
            img.assign("", "", "").to_string(),
            "gcr.io/some-image/hello:latest"
        );
        assert_eq!(
            img.assign("my.io", "", "@sha256:x").to_string(),
            "my.io/some-image/hello@sha256:x"
        );
        assert_eq!(parse("").assign("", "", ":latest").to_string(), ":latest");
        assert_eq!(
            parse("nginx").assign("localhost:5000", "", "").to_string(),
            "localhost:5000/nginx"
        );
    }

    #[test]
    fn the_domain_needs_a_dot_a_colon_or_localhost() {
        assert_eq!(parse("localhost/app").domain, "localhost");
        assert_eq!(parse("host:80/app").domain, "host:80");
        assert_eq!(parse("LOCALHOST/app").domain, "");
        assert_eq!(parse("a/b/c").path, "a/b/c");
    }

    #[test]
    fn word_and_digit_classes_are_ascii() {
        assert_eq!(kind("é.com", "", ""), Some(ImageErrorKind::InvalidDomain));
        assert_eq!(kind("a.com:٥", "", ""), Some(ImageErrorKind::InvalidDomain));
        assert_eq!(kind("", "", ":é"), Some(ImageErrorKind::InvalidTag));
        assert_eq!(kind("a_b.c-d", "", ":V_1.2-x"), None);
    }

    #[test]
    fn the_path_must_be_one_whole_leftmost_first_match() {
        assert_eq!(kind("", "a__b", ""), None);
        assert_eq!(kind("", "a___b", ""), Some(ImageErrorKind::InvalidPath));
        assert_eq!(kind("", "a--b", ""), None);
        assert_eq!(kind("", "a.-b", ""), Some(ImageErrorKind::InvalidPath));
        assert_eq!(kind("", "Upper", ""), Some(ImageErrorKind::InvalidPath));
    }

    #[test]
    fn checks_run_in_gatekeepers_order() {
        assert_eq!(
            kind("bad", "BAD", "bad"),
            Some(ImageErrorKind::InvalidDomain)
        );
        assert_eq!(kind("", "BAD", "bad"), Some(ImageErrorKind::InvalidPath));
        assert_eq!(
            kind("", "localhost/x", "bad"),
            Some(ImageErrorKind::InvalidTag)
        );
        assert_eq!(
            kind("", "localhost/x", ""),
            Some(ImageErrorKind::DomainLikePath)
        );
        assert_eq!(
            validate_parts("", "", "\t").unwrap_err().message,
            r#"assignTag "\t" must be a valid docker image tag or digest starting with ':' or '@'"#
        );
    }

    #[test]
    fn tags_are_capped_and_digests_need_32_hex_digits() {
        let long = format!(":{}", "a".repeat(128));
        assert_eq!(kind("", "", &long), None);
        assert_eq!(
            kind("", "", &format!("{long}a")),
            Some(ImageErrorKind::InvalidTag)
        );
        let digest = format!("@sha256+v1.x:{}", "aF0".repeat(11));
        assert_eq!(kind("", "", &digest), None);
    }
}
