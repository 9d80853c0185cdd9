//! Location paths (`path-parse`) and path tests (`pathtests-validate`).
use crate::Check;
use kadmit::testing::gatekeeper::path::tester::Tester;
use kadmit::testing::gatekeeper::path::{parse, ErrorKind, KeyValue, Node, Path};
use serde_json::Value;

/// The checks for `kind`, or `None` when this module does not handle that kind.
pub fn checks(kind: &str, cases: &[Value]) -> Option<Vec<(String, Check)>> {
    let check: fn(&Value) -> Result<(), String> = match kind {
        "path-parse" => check_parse,
        "pathtests-validate" => check_path_tests,
        _ => return None,
    };
    Some(
        cases
            .iter()
            .map(|case| {
                let id = case["id"].as_str().expect("case without id").to_owned();
                let case = case.clone();
                let run: Check = Box::new(move || check(&case));
                (id, run)
            })
            .collect(),
    )
}

fn text<'a>(value: &'a Value, what: &str) -> Result<&'a str, String> {
    value
        .as_str()
        .ok_or_else(|| format!("fixture: {what} is not a string: {value}"))
}

/// A node as the fixtures write it: `{obj: name}` or `{list: {key, value | glob: true}}`.
fn expected_node(node: &Value) -> Result<Node, String> {
    if let Some(name) = node.get("obj") {
        return Ok(Node::Object(text(name, "obj")?.to_owned()));
    }
    let list = node
        .get("list")
        .ok_or_else(|| format!("fixture: unknown node {node}"))?;
    let key_value = if list["glob"].as_bool() == Some(true) {
        None
    } else {
        Some(match &list["value"] {
            Value::String(s) => KeyValue::String(s.clone()),
            Value::Number(n) => KeyValue::Int(
                n.as_i64()
                    .ok_or_else(|| format!("fixture: value {n} is not an int64"))?,
            ),
            other => return Err(format!("fixture: list value {other}")),
        })
    };
    Ok(Node::List {
        key_field: text(&list["key"], "list key")?.to_owned(),
        key_value,
    })
}

fn error_kind_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::TrailingSeparator => "ErrTrailingSeparator",
        ErrorKind::UnexpectedToken => "ErrUnexpectedToken",
        ErrorKind::InvalidInteger => "ErrInvalidInteger",
        ErrorKind::InvalidCharacter => "ErrInvalidCharacter",
        ErrorKind::UnterminatedString => "ErrUnterminatedString",
    }
}

fn check_parse(case: &Value) -> Result<(), String> {
    let input = text(&case["input"], "input")?;
    let expect = &case["expect"];
    let got = parse(input);
    if let Some(message) = expect.get("error") {
        let err = got.err().ok_or("parsed, but an error was expected")?;
        let kind = text(&expect["error_kind"], "error_kind")?;
        if error_kind_name(err.kind) != kind || err.message != text(message, "error")? {
            return Err(format!(
                "got {} `{}`, want {kind} `{}`",
                error_kind_name(err.kind),
                err.message,
                text(message, "error")?
            ));
        }
        return Ok(());
    }
    let path = got.map_err(|e| format!("unexpected error: {e}"))?;
    let nodes = expect["nodes"]
        .as_array()
        .ok_or("fixture: expect.nodes is not a list")?
        .iter()
        .map(expected_node)
        .collect::<Result<Vec<_>, _>>()?;
    let want = Path { nodes };
    if path != want {
        return Err(format!("nodes: got {path:?}, want {want:?}"));
    }
    let canonical = text(&expect["canonical"], "canonical")?;
    if path.to_string() != canonical {
        return Err(format!("canonical: got `{path}`, want `{canonical}`"));
    }
    Ok(())
}

fn check_path_tests(case: &Value) -> Result<(), String> {
    let location = parse(text(&case["location"], "location")?)
        .map_err(|e| format!("fixture: location does not parse: {e}"))?;
    let got = Tester::from_spec(&location, case.get("pathTests"), "Assign", "case");
    let expect = &case["expect"];
    match (got, expect.get("error")) {
        (Ok(_), None) if expect["ok"] == Value::Bool(true) => Ok(()),
        (Err(err), Some(want)) if err.contains(text(want, "error")?) => Ok(()),
        (Ok(_), _) => Err(format!("accepted; want {expect}")),
        (Err(err), _) => Err(format!("error `{err}`; want {expect}")),
    }
}
