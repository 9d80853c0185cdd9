//! The default pull policy of an image reference, as `SetDefaults_Container` and
//! `SetDefaults_Volume` (image volumes) compute it: `Always` when the tag parsed by
//! `pkg/util/parsers.ParseImageName` is `latest`, else `IfNotPresent`.
//!
//! `ParseImageName` calls distribution/reference `ParseNormalizedNamed`; when neither a tag
//! nor a digest is present the tag is `latest`. When parsing fails the tag is "" (the error
//! is ignored: "assume it has been validated elsewhere"), so an unparsable reference gets
//! `IfNotPresent`. Hence the grammar is reproduced here: only a reference that parses can be
//! `Always`.

/// `Always` or `IfNotPresent` for `image`.
pub fn pull_policy(image: &str) -> &'static str {
    if parsed_tag(image).as_deref() == Some("latest") {
        "Always"
    } else {
        "IfNotPresent"
    }
}

/// The tag `ParseImageName` returns: `None` on a parse error, `latest` when the reference has
/// neither tag nor digest.
fn parsed_tag(image: &str) -> Option<String> {
    // ParseNormalizedNamed: a bare 64-hex identifier is refused.
    if image.len() == 64
        && image
            .bytes()
            .all(|b| matches!(b, b'a'..=b'f' | b'0'..=b'9'))
    {
        return None;
    }
    let (domain, remainder) = split_docker_domain(image);
    let remote_name = remainder.split(':').next().unwrap_or_default();
    if remote_name.to_lowercase() != remote_name {
        return None;
    }
    let normalized = format!("{domain}/{remainder}");
    let (name, tag, digest) = parse_reference(&normalized)?;
    // reference.Parse: NameTotalLengthMax.
    if name.len() > 255 {
        return None;
    }
    if let Some(d) = digest {
        validate_digest(d)?;
    }
    match (tag, digest) {
        (Some(t), _) => Some(t.to_owned()),
        (None, Some(_)) => Some(String::new()),
        (None, None) => Some("latest".to_owned()),
    }
}

/// distribution/reference `splitDockerDomain`: the first component is a domain only when it
/// has a `.` or `:`, is `localhost`, or has an upper-case letter; otherwise docker.io, with
/// `library/` for single-component names.
fn split_docker_domain(name: &str) -> (&str, String) {
    let (mut domain, mut remainder) = match name.find('/') {
        Some(i) => {
            let first = &name[..i];
            if !first.contains(['.', ':']) && first != "localhost" && first.to_lowercase() == first
            {
                ("docker.io", name.to_owned())
            } else {
                (first, name[i + 1..].to_owned())
            }
        }
        None => ("docker.io", name.to_owned()),
    };
    if domain == "index.docker.io" {
        domain = "docker.io";
    }
    if domain == "docker.io" && !remainder.contains('/') {
        remainder = format!("library/{remainder}");
    }
    (domain, remainder)
}

/// `ReferenceRegexp`: `name(:tag)?(@digest)?`. Returns (name, tag, digest).
fn parse_reference(s: &str) -> Option<(&str, Option<&str>, Option<&str>)> {
    let (rest, digest) = match s.split_once('@') {
        Some((r, d)) => (r, Some(d)),
        None => (s, None),
    };
    if digest.is_some_and(|d| !is_digest_syntax(d)) {
        return None;
    }
    // A `:` whose suffix has no `/` starts the tag (a port is always followed by a path).
    let (name, tag) = match rest.rsplit_once(':') {
        Some((n, t)) if !t.contains('/') => (n, Some(t)),
        _ => (rest, None),
    };
    if tag.is_some_and(|t| !is_tag(t)) || !is_name(name) {
        return None;
    }
    Some((name, tag, digest))
}

/// `(domainAndPort/)?pathComponent(/pathComponent)*`.
fn is_name(name: &str) -> bool {
    let parts: Vec<&str> = name.split('/').collect();
    if parts.iter().all(|p| is_path_component(p)) {
        return true;
    }
    parts.len() > 1
        && is_domain_and_port(parts[0])
        && parts[1..].iter().all(|p| is_path_component(p))
}

/// `[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*`.
fn is_path_component(p: &str) -> bool {
    let b = p.as_bytes();
    let alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let mut i = 0;
    loop {
        let start = i;
        while i < b.len() && alnum(b[i]) {
            i += 1;
        }
        if i == start {
            return false;
        }
        if i == b.len() {
            return true;
        }
        let sep = i;
        match b[i] {
            b'.' => i += 1,
            b'_' => {
                i += 1;
                if i < b.len() && b[i] == b'_' {
                    i += 1;
                }
            }
            b'-' => {
                while i < b.len() && b[i] == b'-' {
                    i += 1;
                }
            }
            _ => return false,
        }
        debug_assert!(i > sep);
    }
}

/// `host(:[0-9]+)?` with host a dotted domain name or a bracketed IPv6 address.
fn is_domain_and_port(d: &str) -> bool {
    let (host, port) = if let Some(rest) = d.strip_prefix('[') {
        let Some(end) = rest.find(']') else {
            return false;
        };
        let ip = &rest[..end];
        if ip.is_empty() || !ip.bytes().all(|c| c.is_ascii_hexdigit() || c == b':') {
            return false;
        }
        let after = &rest[end + 1..];
        match after.strip_prefix(':') {
            Some(p) => (None, Some(p)),
            None if after.is_empty() => (None, None),
            None => return false,
        }
    } else {
        match d.split_once(':') {
            Some((h, p)) => (Some(h), Some(p)),
            None => (Some(d), None),
        }
    };
    if port.is_some_and(|p| p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit())) {
        return false;
    }
    host.is_none_or(|h| h.split('.').all(is_domain_component))
}

/// `[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]`.
fn is_domain_component(c: &str) -> bool {
    let b = c.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|&x| x.is_ascii_alphanumeric() || x == b'-')
}

/// `[\w][\w.-]{0,127}`.
fn is_tag(t: &str) -> bool {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let b = t.as_bytes();
    !b.is_empty()
        && b.len() <= 128
        && word(b[0])
        && b.iter().all(|&c| word(c) || c == b'.' || c == b'-')
}

/// `[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}`.
fn is_digest_syntax(d: &str) -> bool {
    let Some((alg, hex)) = d.split_once(':') else {
        return false;
    };
    let alg_ok = alg.split(['-', '_', '+', '.']).all(|part| {
        let b = part.as_bytes();
        !b.is_empty() && b[0].is_ascii_alphabetic() && b.iter().all(u8::is_ascii_alphanumeric)
    });
    alg_ok && hex.len() >= 32 && hex.bytes().all(|c| c.is_ascii_hexdigit())
}

/// go-digest `Digest.Validate` with the algorithms kubelet links in (sha256, sha384,
/// sha512): the encoded part must be lower-case hex of the algorithm's length.
fn validate_digest(d: &str) -> Option<()> {
    let (alg, hex) = d.split_once(':')?;
    let len = match alg {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => return None,
    };
    (hex.len() == len && hex.bytes().all(|c| matches!(c, b'a'..=b'f' | b'0'..=b'9'))).then_some(())
}
