//! A patch `value` is YAML text (after its template ran), typed the way KubeMod types it:
//! `sigs.k8s.io/yaml.YAMLToJSON`, go-yaml v2, YAML 1.1. `'8080'` is a number,
//! `'"8080"'` a string, `yes` a boolean, empty text null; only the first document counts.

use crate::io::compose::compose;
use serde_json::Value;

pub fn typed_value(text: &str) -> Result<Value, String> {
    let documents = compose(text)
        .map_err(|e| format!("value is not valid YAML (line {}): {}", e.line, e.message))?;
    Ok(documents
        .into_iter()
        .next()
        .map_or(Value::Null, |d| d.value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yaml_1_1_typing() {
        assert_eq!(typed_value("8080").unwrap(), json!(8080));
        assert_eq!(typed_value("\"8080\"").unwrap(), json!("8080"));
        assert_eq!(typed_value("yes").unwrap(), json!(true));
        assert_eq!(typed_value("0755").unwrap(), json!(493));
        assert_eq!(typed_value("").unwrap(), Value::Null);
        assert_eq!(typed_value("2020-01-02").unwrap(), json!("2020-01-02"));
        assert_eq!(typed_value("text: more").unwrap(), json!({"text": "more"}));
        assert_eq!(typed_value("[a, 1]").unwrap(), json!(["a", 1]));
        assert!(typed_value(".inf").is_err());
        assert!(typed_value("a: [").is_err());
    }
}
