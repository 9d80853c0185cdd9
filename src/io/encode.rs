//! Output encoders: a YAML stream, a JSON `v1 List`, or a KRM `ResourceList`. Output is
//! built in memory and written only when the run succeeds (nothing partial on stdout).

use kadmit_yaml::emit::{write_document, write_entry, write_sequence_item};
use kadmit_yaml::spans::ItemText;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A `---`-separated YAML stream.
    Yaml,
    /// A JSON `v1 List`.
    Json,
    /// A KRM `config.kubernetes.io/v1 ResourceList` (YAML).
    ResourceList,
}

pub struct Encoder {
    format: Format,
    out: String,
    count: usize,
}

impl Encoder {
    pub fn new(format: Format) -> Encoder {
        Encoder::with_capacity(format, 0)
    }

    /// An encoder whose buffer is sized once for about `capacity` bytes of output (growing a
    /// large buffer by copying keeps the old copies resident).
    pub fn with_capacity(format: Format, capacity: usize) -> Encoder {
        let mut out = String::with_capacity(capacity);
        match format {
            Format::Yaml => {}
            Format::Json => {
                out.push_str("{\n\"apiVersion\": \"v1\",\n\"kind\": \"List\",\n\"items\": [")
            }
            Format::ResourceList => {
                out.push_str("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:")
            }
        }
        Encoder {
            format,
            out,
            count: 0,
        }
    }

    pub fn push(&mut self, value: &Value) {
        match self.format {
            Format::Yaml => {
                if self.count > 0 {
                    self.out.push_str("---\n");
                }
                write_document(&mut self.out, value);
            }
            Format::Json => {
                self.out.push_str(if self.count > 0 { ",\n" } else { "\n" });
                self.out
                    .push_str(&serde_json::to_string(value).expect("a Value always serializes"));
            }
            Format::ResourceList => {
                if self.count == 0 {
                    self.out.push('\n');
                }
                write_sequence_item(&mut self.out, value);
            }
        }
        self.count += 1;
    }

    /// Writes a KRM item that came with its own text (`source`, read back to `original`):
    /// unchanged, as those bytes; changed, with each top-level key whose value did not
    /// change copied from its own lines and the others written anew. Other formats write
    /// `value` as [`Encoder::push`] does.
    pub fn push_item(&mut self, value: &Value, original: &Value, source: &ItemText) {
        if self.format != Format::ResourceList {
            return self.push(value);
        }
        if self.count == 0 {
            self.out.push('\n');
        }
        self.count += 1;
        if value == original {
            return self.out.push_str(&source.text);
        }
        let (Value::Object(map), Value::Object(before)) = (value, original) else {
            return write_sequence_item(&mut self.out, value);
        };
        if source.keys.is_empty() || map.is_empty() {
            return write_sequence_item(&mut self.out, value);
        }
        for (i, (key, value)) in map.iter().enumerate() {
            self.out.push_str(if i == 0 { "- " } else { "  " });
            let copied = source
                .keys
                .iter()
                .find(|k| k.name == *key)
                .filter(|_| before.get(key) == Some(value));
            match copied {
                Some(k) => self
                    .out
                    .push_str(&source.text[k.lines.start + 2..k.lines.end]),
                None => write_entry(&mut self.out, key, value, 2),
            }
        }
    }

    /// Closes the output. `function_config` and `results` matter only for a ResourceList.
    pub fn finish(mut self, function_config: Option<&Value>, results: &[Value]) -> String {
        match self.format {
            Format::Yaml => {}
            Format::Json => self.out.push_str("\n]\n}\n"),
            Format::ResourceList => {
                if self.count == 0 {
                    self.out.push_str(" []\n");
                }
                if let Some(config) = function_config {
                    self.out.push_str("functionConfig:\n  ");
                    let mut inner = String::new();
                    write_document(&mut inner, config);
                    indent_lines(&mut self.out, &inner);
                }
                if !results.is_empty() {
                    self.out.push_str("results:\n");
                    for result in results {
                        write_sequence_item(&mut self.out, result);
                    }
                }
            }
        }
        self.out
    }
}

/// Appends a block document indented by two spaces (its first line is already placed).
fn indent_lines(out: &mut String, text: &str) {
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push_str(if line.is_empty() { "" } else { "  " });
        }
        out.push_str(line);
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yaml_stream_separates_documents() {
        let mut e = Encoder::new(Format::Yaml);
        e.push(&json!({"a": 1}));
        e.push(&json!({"b": 2}));
        assert_eq!(e.finish(None, &[]), "a: 1\n---\nb: 2\n");
    }

    #[test]
    fn json_list_is_valid_json() {
        let mut e = Encoder::new(Format::Json);
        e.push(&json!({"a": 1}));
        e.push(&json!({"b": "yes"}));
        let v: Value = serde_json::from_str(&e.finish(None, &[])).unwrap();
        assert_eq!(
            v,
            json!({"apiVersion": "v1", "kind": "List", "items": [{"a": 1}, {"b": "yes"}]})
        );
        let v: Value = serde_json::from_str(&Encoder::new(Format::Json).finish(None, &[])).unwrap();
        assert_eq!(v["items"], json!([]));
    }

    #[test]
    fn resource_list_with_results() {
        let mut e = Encoder::new(Format::ResourceList);
        e.push(&json!({"kind": "X", "data": {"k": "on"}}));
        let text = e.finish(
            Some(&json!({"kind": "C", "x": {"y": 1}})),
            &[json!({"message": "m", "severity": "error"})],
        );
        assert_eq!(
            text,
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: X\n  data:\n    k: \"on\"\nfunctionConfig:\n  kind: C\n  x:\n    \"y\": 1\nresults:\n- message: m\n  severity: error\n"
        );
        let empty = Encoder::new(Format::ResourceList).finish(None, &[]);
        assert_eq!(
            empty,
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"
        );
    }
}
