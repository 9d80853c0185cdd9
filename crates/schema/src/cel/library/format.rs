//! Kubernetes' `library.Format` (type `kubernetes.NamedFormat`): `format.<name>()`,
//! `format.named(name)` and `.validate(s)`, which is `optional.none()` for a valid string and
//! otherwise the apimachinery validation messages.

use super::{out, str_arg, Out};
use base64::Engine;
use cel::common::types::{Type, STRING_TYPE};
use cel::common::value::CowVal;
use cel::objects::{Opaque, OptionalValue};
use cel::{DeclarationError, Env, ExecutionError, Value};
use kadmit_go::regexp;
use std::sync::Arc;

const TYPE_NAME: &str = "kubernetes.NamedFormat";

/// One named format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format(&'static str);

impl Opaque for Format {
    fn runtime_type_name(&self) -> &str {
        TYPE_NAME
    }
}

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    let format = || Type::new_opaque_type(TYPE_NAME);
    env.add_type(format())?;
    env.add_overload("format.named", "format_named", vec![STRING_TYPE], named)?;
    for name in NAMES {
        env.add_overload(
            &format!("format.{name}"),
            &format!("format_{name}"),
            vec![],
            by_name(name),
        )?;
    }
    env.add_member_overload(
        "validate",
        "format_validate_string",
        format(),
        vec![STRING_TYPE],
        validate,
    )?;
    Ok(())
}

fn format_value<'b, 'v>(name: &'static str) -> Out<'b, 'v> {
    out(Value::Opaque(Arc::new(Format(name))))
}

/// The named formats: `NAMES`, and `by_name`, the constructor of `format.<name>()`
/// (overloads are plain `fn`s, one per name), from one list.
macro_rules! named_formats {
    ($($n:literal),* $(,)?) => {
        const NAMES: &[&str] = &[$($n),*];

        fn by_name(name: &str) -> super::Overload {
            match name {
                $($n => |_| format_value($n),)*
                _ => |_| Err(ExecutionError::function_error("format", "unknown format")),
            }
        }
    };
}

named_formats!(
    "dns1123Label",
    "dns1123Subdomain",
    "dns1035Label",
    "qualifiedName",
    "dns1123LabelPrefix",
    "dns1123SubdomainPrefix",
    "dns1035LabelPrefix",
    "labelValue",
    "uri",
    "uuid",
    "byte",
    "date",
    "datetime",
);

fn named<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let name = str_arg(&args, 0)?;
    let found = match NAMES.iter().find(|n| **n == name) {
        Some(n) => OptionalValue::of(Value::Opaque(Arc::new(Format(n)))),
        None => OptionalValue::none(),
    };
    out(Value::Opaque(Arc::new(found)))
}

fn validate<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let format = match args.first().map(|a| Value::try_from(a.as_ref())) {
        Some(Ok(Value::Opaque(o))) => o.downcast_ref::<Format>().cloned(),
        _ => None,
    }
    .ok_or_else(|| ExecutionError::function_error("validate", "not a format"))?;
    let errors = problems(format.0, str_arg(&args, 1)?);
    let result = if errors.is_empty() {
        OptionalValue::none()
    } else {
        let list = errors
            .into_iter()
            .map(|e| Value::String(Arc::new(e)))
            .collect();
        OptionalValue::of(Value::List(Arc::new(list)))
    };
    out(Value::Opaque(Arc::new(result)))
}

/// apimachinery's `RegexError`.
fn regex_error(message: &str, pattern: &str, examples: &[&str]) -> String {
    let mut out = format!("{message} (");
    if !examples.is_empty() {
        out.push_str("e.g. ");
        for (i, e) in examples.iter().enumerate() {
            if i > 0 {
                out.push_str(" or ");
            }
            out.push_str(&format!("'{e}', "));
        }
    }
    out.push_str(&format!("regex used for validation is '{pattern}')"));
    out
}

fn full_match(pattern: &str, s: &str) -> bool {
    regexp::compile(&format!("^(?:{pattern})$")).is_ok_and(|re| re.is_match(s))
}

fn check(s: &str, max: usize, pattern: &str, message: &str, examples: &[&str]) -> Vec<String> {
    let mut errors = Vec::new();
    if s.len() > max {
        errors.push(format!("must be no more than {max} characters"));
    }
    if !full_match(pattern, s) {
        errors.push(regex_error(message, pattern, examples));
    }
    errors
}

const LABEL: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const SUBDOMAIN: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1035: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const QUALIFIED_NAME: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const UUID: &str = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

fn dns1123_label(s: &str) -> Vec<String> {
    let message = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
    check(s, 63, LABEL, message, &["my-name", "123-abc"])
}

fn dns1123_subdomain(s: &str) -> Vec<String> {
    let message = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
    check(s, 253, SUBDOMAIN, message, &["example.com"])
}

fn dns1035_label(s: &str) -> Vec<String> {
    let message = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
    check(s, 63, DNS1035, message, &["my-name", "abc-123"])
}

/// apimachinery's `maskTrailingDash`, used to validate a name prefix.
fn mask_trailing_dash(s: &str) -> String {
    match s.strip_suffix('-') {
        Some(head) if !head.is_empty() => format!("{head}a"),
        _ => s.to_owned(),
    }
}

fn qualified_name(s: &str) -> Vec<String> {
    let message = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
    let parts: Vec<&str> = s.split('/').collect();
    let (prefix, name) = match parts.as_slice() {
        [name] => (None, *name),
        [prefix, name] => (Some(*prefix), *name),
        _ => {
            return vec![format!(
                "{} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(
                    &format!("a qualified name {message}"),
                    QUALIFIED_NAME,
                    &["MyName", "my.name", "123-abc"]
                )
            )]
        }
    };
    let mut errors = Vec::new();
    if let Some(prefix) = prefix {
        if prefix.is_empty() {
            errors.push("prefix part must be non-empty".to_owned());
        } else {
            errors.extend(
                dns1123_subdomain(prefix)
                    .into_iter()
                    .map(|e| format!("prefix part {e}")),
            );
        }
    }
    if name.is_empty() {
        errors.push("name part must be non-empty".to_owned());
    } else {
        if name.len() > 63 {
            errors.push("name part must be no more than 63 characters".to_owned());
        }
        if !full_match(QUALIFIED_NAME, name) {
            errors.push(regex_error(
                &format!("name part {message}"),
                QUALIFIED_NAME,
                &["MyName", "my.name", "123-abc"],
            ));
        }
    }
    errors
}

fn problems(format: &str, s: &str) -> Vec<String> {
    match format {
        "dns1123Label" => dns1123_label(s),
        "dns1123Subdomain" => dns1123_subdomain(s),
        "dns1035Label" => dns1035_label(s),
        "qualifiedName" => qualified_name(s),
        "dns1123LabelPrefix" => dns1123_label(&mask_trailing_dash(s)),
        "dns1123SubdomainPrefix" => dns1123_subdomain(&mask_trailing_dash(s)),
        "dns1035LabelPrefix" => dns1035_label(&mask_trailing_dash(s)),
        "labelValue" => {
            let message = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
            check(
                s,
                63,
                LABEL_VALUE,
                message,
                &["MyValue", "my_value", "12345"],
            )
        }
        // `url.ParseRequestURI`'s error as it prints.
        "uri" => match kadmit_go::url::parse_request_uri(s) {
            Ok(_) => Vec::new(),
            Err(e) => vec![e.to_string()],
        },
        "uuid" if full_match(UUID, s) => Vec::new(),
        "uuid" => vec!["does not match the UUID format".to_owned()],
        "byte" if base64::engine::general_purpose::STANDARD.decode(s).is_ok() && !s.is_empty() => {
            Vec::new()
        }
        "byte" => vec!["invalid base64 value".to_owned()],
        "date" if is_date(s) => Vec::new(),
        "date" => vec!["invalid date".to_owned()],
        "datetime" if super::time::timestamp_from_rfc3339(s).is_some() => Vec::new(),
        "datetime" => vec!["invalid datetime".to_owned()],
        _ => Vec::new(),
    }
}

fn is_date(s: &str) -> bool {
    full_match("[0-9]{4}-[0-9]{2}-[0-9]{2}", s)
        && super::time::timestamp_from_rfc3339(&format!("{s}T00:00:00Z")).is_some()
}
