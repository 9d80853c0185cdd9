//! `image-parse` and `image-validate`: AssignImage's reference split and parameter checks.
use crate::Check;
use kadmit::testing::gatekeeper::image;
use serde_json::Value;

/// The checks for `kind`, or `None` when this module does not handle that kind.
pub fn checks(kind: &str, cases: &[Value]) -> Option<Vec<(String, Check)>> {
    let check: fn(&Value) -> Result<(), String> = match kind {
        "image-parse" => check_parse,
        "image-validate" => check_validate,
        _ => return None,
    };
    Some(
        cases
            .iter()
            .map(|case| {
                let id = case["id"].as_str().unwrap_or("?").to_owned();
                let case = case.clone();
                (id, Box::new(move || check(&case)) as Check)
            })
            .collect(),
    )
}

fn text<'a>(case: &'a Value, key: &str) -> &'a str {
    case[key].as_str().unwrap_or("")
}

fn check_parse(case: &Value) -> Result<(), String> {
    let got = image::parse(text(case, "image"));
    let expect = &case["expect"];
    let want = (
        text(expect, "domain"),
        text(expect, "path"),
        text(expect, "tag"),
    );
    if (got.domain.as_str(), got.path.as_str(), got.tag.as_str()) == want {
        Ok(())
    } else {
        Err(format!("expected {want:?}, got {got:?}"))
    }
}

fn check_validate(case: &Value) -> Result<(), String> {
    let got = image::validate_parts(
        text(case, "assignDomain"),
        text(case, "assignPath"),
        text(case, "assignTag"),
    );
    let expect = &case["expect"];
    match (got, expect["ok"].as_bool() == Some(true)) {
        (Ok(()), true) => Ok(()),
        (Ok(()), false) => Err(format!("expected error {:?}, got ok", expect["error"])),
        (Err(e), true) => Err(format!("expected ok, got {e}")),
        (Err(e), false) => {
            let kind = e.kind.go_name();
            if kind == text(expect, "error_kind") && e.message == text(expect, "error") {
                Ok(())
            } else {
                Err(format!(
                    "expected {} {:?}, got {kind} {:?}",
                    text(expect, "error_kind"),
                    text(expect, "error"),
                    e.message
                ))
            }
        }
    }
}
