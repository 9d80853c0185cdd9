//! The string formats a CRD schema may name and kube-apiserver checks (reference §6.4):
//! apiextensions' list of supported formats at Kubernetes 1.35 and kube-openapi's `strfmt`
//! validators behind them. Any other format is stripped before validation, so it checks
//! nothing.

mod mail;
mod net;
mod time;
mod uri;

use regex::Regex;
use std::sync::OnceLock;

/// A format kube-apiserver 1.35 validates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    BsonObjectId,
    Uri,
    Email,
    Hostname,
    Ipv4,
    Ipv6,
    Cidr,
    Mac,
    Uuid,
    Uuid3,
    Uuid4,
    Uuid5,
    Isbn,
    Isbn10,
    Isbn13,
    CreditCard,
    Ssn,
    HexColor,
    RgbColor,
    Byte,
    Password,
    Date,
    DateTime,
    Duration,
    K8sShortName,
    K8sLongName,
}

impl Format {
    /// The format `name` selects at Kubernetes 1.35, or `None` when the server strips it.
    /// Names compare after removing every `-` (go-openapi's normalisation), so
    /// `date-time` and `datetime` are the same format.
    pub fn supported(name: &str) -> Option<Format> {
        let normalized: String = name.chars().filter(|&c| c != '-').collect();
        Some(match normalized.as_str() {
            "bsonobjectid" => Format::BsonObjectId,
            "uri" => Format::Uri,
            "email" => Format::Email,
            "hostname" => Format::Hostname,
            "ipv4" => Format::Ipv4,
            "ipv6" => Format::Ipv6,
            "cidr" => Format::Cidr,
            "mac" => Format::Mac,
            "uuid" => Format::Uuid,
            "uuid3" => Format::Uuid3,
            "uuid4" => Format::Uuid4,
            "uuid5" => Format::Uuid5,
            "isbn" => Format::Isbn,
            "isbn10" => Format::Isbn10,
            "isbn13" => Format::Isbn13,
            "creditcard" => Format::CreditCard,
            "ssn" => Format::Ssn,
            "hexcolor" => Format::HexColor,
            "rgbcolor" => Format::RgbColor,
            "byte" => Format::Byte,
            "password" => Format::Password,
            "date" => Format::Date,
            "datetime" => Format::DateTime,
            "duration" => Format::Duration,
            "k8sshortname" => Format::K8sShortName,
            "k8slongname" => Format::K8sLongName,
            _ => return None,
        })
    }

    /// Whether `s` is valid in this format.
    pub fn validates(self, s: &str) -> bool {
        match self {
            Format::BsonObjectId => s.len() == 24 && s.bytes().all(|b| b.is_ascii_hexdigit()),
            Format::Uri => uri::is_request_uri(s),
            Format::Email => mail::is_address(s),
            Format::Hostname => is_hostname(s),
            Format::Ipv4 => net::parse_ip_sloppy(s) && s.contains('.'),
            Format::Ipv6 => net::parse_ip(s) && s.contains(':'),
            Format::Cidr => net::is_cidr_sloppy(s),
            Format::Mac => net::is_mac(s),
            Format::Uuid => uuid_regex(0).is_match(s),
            Format::Uuid3 => uuid_regex(3).is_match(s),
            Format::Uuid4 => uuid_regex(4).is_match(s),
            Format::Uuid5 => uuid_regex(5).is_match(s),
            Format::Isbn => is_isbn10(s) || is_isbn13(s),
            Format::Isbn10 => is_isbn10(s),
            Format::Isbn13 => is_isbn13(s),
            Format::CreditCard => is_credit_card(s),
            Format::Ssn => is_ssn(s),
            Format::HexColor => is_hex_color(s),
            Format::RgbColor => rgb_regex().is_match(s),
            Format::Byte => is_base64(s),
            Format::Password => true,
            Format::Date => time::is_date(s),
            Format::DateTime => time::is_date_time(s),
            Format::Duration => time::is_duration(s),
            Format::K8sShortName => s.len() <= 63 && is_dns_label(s),
            Format::K8sLongName => s.len() <= 253 && s.split('.').all(is_dns_label),
        }
    }
}

fn cached(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("format regexes are valid"))
}

/// kube-openapi's hostname pattern, then at most 255 bytes and 63 bytes a label. The
/// pattern takes either one name (a symbol, letter or digit, an optional `-`, up to 62
/// more) or dotted labels (1 to 63 characters, `-` only inside) ending in a label of 2
/// to 63 letters; symbols and letters of any script count.
fn is_hostname(s: &str) -> bool {
    if s.len() > 255 || s.split('.').any(|label| label.len() > 63) {
        return false;
    }
    let is_name = |c: char| c.is_ascii_alphanumeric() || (!c.is_ascii() && symbol_or_letter(c));
    let single = || {
        let mut rest = s.chars();
        let Some(first) = rest.next() else {
            return false;
        };
        let rest = rest.as_str();
        let rest = rest.strip_prefix('-').unwrap_or(rest);
        is_name(first) && rest.chars().count() <= 62 && rest.chars().all(is_name)
    };
    let dotted = || {
        let Some((labels, last)) = s.rsplit_once('.') else {
            return false;
        };
        let last_ok = (2..=63).contains(&last.chars().count())
            && last
                .chars()
                .all(|c| c.is_ascii_alphabetic() || (!c.is_ascii() && letter(c)));
        last_ok
            && labels.split('.').all(|label| {
                let chars: Vec<char> = label.chars().collect();
                match chars.as_slice() {
                    [] => false,
                    [c] => is_name(*c),
                    [first, middle @ .., last] => {
                        chars.len() <= 63
                            && is_name(*first)
                            && is_name(*last)
                            && middle.iter().all(|&c| c == '-' || is_name(c))
                    }
                }
            })
    };
    single() || dotted()
}

fn symbol_or_letter(c: char) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    cached(&RE, r"^[\p{S}\p{L}]$").is_match(c.encode_utf8(&mut [0; 4]))
}

fn letter(c: char) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    cached(&RE, r"^\p{L}$").is_match(c.encode_utf8(&mut [0; 4]))
}

fn uuid_regex(version: u8) -> &'static Regex {
    static ANY: OnceLock<Regex> = OnceLock::new();
    static V3: OnceLock<Regex> = OnceLock::new();
    static V4: OnceLock<Regex> = OnceLock::new();
    static V5: OnceLock<Regex> = OnceLock::new();
    match version {
        3 => cached(
            &V3,
            r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
        ),
        4 => cached(
            &V4,
            r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$",
        ),
        5 => cached(
            &V5,
            r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$",
        ),
        _ => cached(
            &ANY,
            r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
        ),
    }
}

fn rgb_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    const BYTE: &str = "(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])";
    const SP: &str = r"[\t\n\f\r ]*";
    RE.get_or_init(|| {
        Regex::new(&format!(
            r"^rgb\({SP}{BYTE}{SP},{SP}{BYTE}{SP},{SP}{BYTE}{SP}\)$"
        ))
        .expect("the rgbcolor regex is valid")
    })
}

/// govalidator strips Go's `[\s-]+` before checking ISBNs.
fn isbn_digits(s: &str) -> Vec<u8> {
    s.bytes()
        .filter(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'-'))
        .collect()
}

fn is_isbn10(s: &str) -> bool {
    let d = isbn_digits(s);
    if d.len() != 10
        || !d[..9].iter().all(u8::is_ascii_digit)
        || !(d[9].is_ascii_digit() || d[9] == b'X')
    {
        return false;
    }
    let mut sum: u32 = (0..9)
        .map(|i| (i as u32 + 1) * u32::from(d[i] - b'0'))
        .sum();
    sum += 10
        * if d[9] == b'X' {
            10
        } else {
            u32::from(d[9] - b'0')
        };
    sum.is_multiple_of(11)
}

fn is_isbn13(s: &str) -> bool {
    let d = isbn_digits(s);
    if d.len() != 13 || !d.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let sum: u32 = (0..12)
        .map(|i| u32::from(d[i] - b'0') * if i % 2 == 0 { 1 } else { 3 })
        .sum();
    u32::from(d[12] - b'0') == (10 - sum % 10) % 10
}

/// Non-digits are dropped, the rest must look like a known card number and pass Luhn.
fn is_credit_card(s: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let digits: String = s.chars().filter(char::is_ascii_digit).collect();
    let re = cached(
        &RE,
        "^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})$",
    );
    if !re.is_match(&digits) {
        return false;
    }
    let mut sum = 0;
    for (i, b) in digits.bytes().rev().enumerate() {
        let d = u32::from(b - b'0');
        sum += if i % 2 == 1 {
            let doubled = d * 2;
            if doubled >= 10 {
                doubled % 10 + 1
            } else {
                doubled
            }
        } else {
            d
        };
    }
    sum % 10 == 0
}

fn is_ssn(s: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    s.len() == 11 && cached(&RE, "^[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}$").is_match(s)
}

fn is_hex_color(s: &str) -> bool {
    let hex = s.strip_prefix('#').unwrap_or(s);
    matches!(hex.len(), 3 | 6) && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

/// govalidator's standard-alphabet base64 regex: whole padded quanta, at least one.
fn is_base64(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() || !b.len().is_multiple_of(4) {
        return false;
    }
    let alphabet = |c: &u8| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/';
    let (body, last) = b.split_at(b.len() - 4);
    body.iter().all(alphabet)
        && match last {
            [a, b, b'=', b'='] => alphabet(a) && alphabet(b),
            [a, b, c, b'='] => alphabet(a) && alphabet(b) && alphabet(c),
            quantum => quantum.iter().all(alphabet),
        }
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn is_dns_label(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    !b.is_empty()
        && alnum(&b[0])
        && alnum(&b[b.len() - 1])
        && b.iter().all(|c| alnum(c) || *c == b'-')
}

#[cfg(test)]
mod tests;
