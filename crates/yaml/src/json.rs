//! JSON input: a stream of objects, decoded with kubectl's strictness (duplicate keys refused,
//! integers never rounded, nesting bounded).

use super::compose::MAX_DEPTH;
use crate::Limits;
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

#[derive(Debug)]
pub struct JsonError {
    pub message: String,
    pub line: usize,
    /// 0-based index of the value being read when the error occurred.
    pub document: usize,
}

/// Decodes every JSON value in `text`, each with the 1-based line it starts on, within the
/// default [`Limits`].
pub fn decode_json_stream(text: &str) -> Result<Vec<(Value, usize)>, JsonError> {
    let mut out = Vec::new();
    decode_json_stream_with(text, &Limits::default(), |value, line| {
        out.push((value, line))
    })?;
    Ok(out)
}

/// Decodes the JSON values of `text` one at a time, handing each to `sink` with the
/// 1-based line it starts on, so only one document's tree is alive at once. The whole
/// text is checked first (nesting, integers, nodes per document): a stream that fails
/// those hands nothing to `sink`.
pub fn decode_json_stream_with(
    text: &str,
    limits: &Limits,
    mut sink: impl FnMut(Value, usize),
) -> Result<(), JsonError> {
    scan(text, limits)?;
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let mut stream = de.into_iter::<StrictDocument>();
    let mut line = 1;
    let mut counted = 0;
    let mut document = 0;
    loop {
        let offset = stream.byte_offset();
        let rest = text.get(offset..).unwrap_or_default();
        let start = offset + (rest.len() - rest.trim_start().len());
        // Lines are counted from where the previous document's count stopped: linear.
        line += text.as_bytes()[counted..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted = start;
        match stream.next() {
            None => return Ok(()),
            Some(Ok(StrictDocument(value))) => {
                sink(value, line);
                document += 1;
            }
            Some(Err(e)) => {
                return Err(JsonError {
                    message: e.to_string(),
                    line: e.line(),
                    document,
                })
            }
        }
    }
}

/// One stream element decoded by [`StrictVisitor`].
struct StrictDocument(Value);

impl<'de> serde::Deserialize<'de> for StrictDocument {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        StrictValue.deserialize(d).map(StrictDocument)
    }
}

/// Checks nesting depth and integer size before serde_json sees the text, so a hostile
/// document cannot overflow the stack and a large integer is refused instead of rounded.
/// It also counts each document's nodes (collections, keys, scalars), so a document over
/// [`Limits::max_nodes`] is refused before any tree is built.
fn scan(text: &str, limits: &Limits) -> Result<(), JsonError> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut document = 0usize;
    let mut nodes = 0usize;
    let mut line = 1;
    let mut i = 0;
    while i < bytes.len() {
        if matches!(
            bytes[i],
            b'"' | b'{' | b'[' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'
        ) {
            nodes += 1;
            if nodes > limits.max_nodes {
                return Err(JsonError {
                    message: crate::too_many_nodes(limits.max_nodes),
                    line,
                    document,
                });
            }
        }
        match bytes[i] {
            b'\n' => line += 1,
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    } else if bytes[i] == b'\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(JsonError {
                        message: format!("document nests deeper than {MAX_DEPTH} levels"),
                        line,
                        document,
                    });
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    document += 1;
                    nodes = 0;
                }
            }
            b'-' if depth == 0 && bytes[i..].starts_with(b"---") => {
                return Err(JsonError {
                    message: "unexpected \"---\": a JSON stream cannot contain YAML document \
                              separators"
                        .to_owned(),
                    line,
                    document,
                });
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i + 1 < bytes.len()
                    && matches!(bytes[i + 1], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    i += 1;
                }
                let token = &text[start..=i];
                // Only a well-formed integer is checked; serde_json reports anything else.
                let digits = token.strip_prefix('-').unwrap_or(token);
                let integral = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
                if integral && token.parse::<i64>().is_err() && token.parse::<u64>().is_err() {
                    return Err(JsonError {
                        message: format!(
                            "integer {token} does not fit in 64 bits and would be rounded; quote it if it is a string"
                        ),
                        line,
                        document,
                    });
                }
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// A `serde_json::Value` that refuses duplicate object keys.
struct StrictValue;

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("number is not finite"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(StrictValue)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            if map.contains_key(&key) {
                return Err(A::Error::custom(format!("duplicate key {key:?}")));
            }
            let value = access.next_value_seed(StrictValue)?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decodes_concatenated_objects_with_lines() {
        let docs = decode_json_stream("{\"a\": 1}\n{\n \"b\": [true, 1.5]}\n").unwrap();
        assert_eq!(
            docs,
            vec![(json!({"a": 1}), 1), (json!({"b": [true, 1.5]}), 2)]
        );
    }

    #[test]
    fn documents_over_the_node_limit_are_refused_before_they_are_built() {
        let limits = Limits { max_nodes: 10 };
        let mut seen = Vec::new();
        // {, "l", [, 7 items: 10 nodes per document; true/false/null/strings count too.
        let ok = "{\"l\": [1, -2, 3.5, true, false, null, \"x\"]}\n{\"l\": [1, 2, 3, 4, 5, 6, 7]}";
        decode_json_stream_with(ok, &limits, |v, line| seen.push((v, line))).unwrap();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[1].1, 2);
        let e =
            decode_json_stream_with("{}\n{\"l\": [1, 2, 3, 4, 5, 6, 7, 8]}", &limits, |_, _| {
                panic!("nothing is handed over from a stream that fails the scan")
            })
            .unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.line, e.document),
            (
                "document holds more than 10 nodes (keys, values and collections)",
                2,
                1
            )
        );
    }

    #[test]
    fn refuses_duplicates_big_integers_and_depth() {
        assert!(decode_json_stream("{\"a\": 1, \"a\": 2}")
            .unwrap_err()
            .message
            .contains("duplicate"));
        let e = decode_json_stream("{}\n{\n\"a\": 123456789012345678901234}").unwrap_err();
        assert_eq!((e.line, e.document), (3, 1));
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(decode_json_stream(&format!("{{\"a\": {deep}}}"))
            .unwrap_err()
            .message
            .contains("deeper"));
    }
}
