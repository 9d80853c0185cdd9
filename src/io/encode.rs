//! Output encoders: a YAML stream, a JSON `v1 List`, or a KRM `ResourceList`. Output is
//! built in memory and written only when the run succeeds (nothing partial on stdout).

use super::output::{Piece, Pieces};
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
    /// With documents written as ranges of the input ([`Encoder::push_input`]): the output
    /// so far, in order, up to `out[written_from..]`.
    pieces: Vec<Piece>,
    written_from: usize,
}

/// What separates two documents of a YAML stream.
const SEPARATOR: &str = "---\n";

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
            pieces: Vec::new(),
            written_from: 0,
        }
    }

    pub fn format(&self) -> Format {
        self.format
    }

    pub fn push(&mut self, value: &Value) {
        self.push_rendered(&render(self.format, value, None));
    }

    /// Writes a KRM item that came with its own text (`source`, read back to `original`):
    /// see [`render`].
    pub fn push_item(&mut self, value: &Value, original: &Value, source: &ItemText) {
        self.push_rendered(&render(self.format, value, Some((original, source))));
    }

    /// Appends one document [`render`]ed for this encoder's format, after the separator
    /// the format puts between documents.
    pub fn push_rendered(&mut self, document: &str) {
        match self.format {
            Format::Yaml if self.count > 0 => self.out.push_str(SEPARATOR),
            Format::Json => self.out.push_str(if self.count > 0 { ",\n" } else { "\n" }),
            Format::ResourceList if self.count == 0 => self.out.push('\n'),
            _ => {}
        }
        self.out.push_str(document);
        self.count += 1;
    }

    /// Appends, in a YAML stream, a document that is `range` of input number `input`,
    /// without copying it: the output names the range ([`Pieces`]). `after_separator`:
    /// the input has exactly the separator the output puts between documents (`---` and
    /// a line break) right before `range`; the range then extends the previous document's
    /// when that one ends there. Known without looking at the input again: this runs on
    /// the calling thread, in order, where reading the text again missed the cache.
    pub fn push_input(
        &mut self,
        input: usize,
        range: std::ops::Range<usize>,
        after_separator: bool,
    ) {
        debug_assert_eq!(
            self.format,
            Format::Yaml,
            "only a YAML stream copies its input"
        );
        let separated = self.count > 0;
        self.count += 1;
        if let Some(Piece::Input {
            input: last,
            range: previous,
        }) = self.pieces.last_mut()
        {
            let follows = separated
                && after_separator
                && *last == input
                && self.written_from == self.out.len()
                && previous.end + SEPARATOR.len() == range.start;
            if follows {
                previous.end = range.end;
                return;
            }
        }
        if separated {
            self.out.push_str(SEPARATOR);
        }
        self.close_written();
        self.pieces.push(Piece::Input { input, range });
    }

    /// What was written since the last input range becomes a piece.
    fn close_written(&mut self) {
        if self.written_from < self.out.len() {
            self.pieces
                .push(Piece::Written(self.written_from..self.out.len()));
            self.written_from = self.out.len();
        }
    }

    /// Closes the output, which names ranges of the inputs when [`Encoder::push_input`]
    /// was used. `function_config` and `results` matter only for a ResourceList.
    pub fn finish_pieces(mut self, function_config: Option<&Value>, results: &[Value]) -> Pieces {
        let copied = !self.pieces.is_empty();
        let mut pieces = std::mem::take(&mut self.pieces);
        let written_from = self.written_from;
        let written = self.finish(function_config, results);
        if copied && written_from < written.len() {
            pieces.push(Piece::Written(written_from..written.len()));
        }
        Pieces { written, pieces }
    }

    /// Closes an output written without input ranges. `function_config` and `results`
    /// matter only for a ResourceList.
    pub fn finish(mut self, function_config: Option<&Value>, results: &[Value]) -> String {
        assert!(
            self.pieces.is_empty(),
            "an output with input ranges is closed with finish_pieces"
        );
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

/// One document as `format` writes it, without what separates it from the others (see
/// [`Encoder::push_rendered`]): documents are rendered independently of each other, on
/// any thread, and appended in order.
///
/// `source`: a KRM item's own text and the value it read as. In a `ResourceList` an
/// unchanged item is written as those bytes; a changed one with each top-level key whose
/// value did not change copied from its own lines and the others written anew. Other
/// formats write `value` alone.
pub fn render(format: Format, value: &Value, source: Option<(&Value, &ItemText)>) -> String {
    let mut out = String::new();
    match (format, source) {
        (Format::Yaml, _) => write_document(&mut out, value),
        (Format::Json, _) => {
            out = serde_json::to_string(value).expect("a Value always serializes");
        }
        (Format::ResourceList, None) => write_sequence_item(&mut out, value),
        (Format::ResourceList, Some((original, source))) => {
            write_item_from_source(&mut out, value, original, source)
        }
    }
    out
}

fn write_item_from_source(out: &mut String, value: &Value, original: &Value, source: &ItemText) {
    if value == original {
        return out.push_str(&source.text);
    }
    let (Value::Object(map), Value::Object(before)) = (value, original) else {
        return write_sequence_item(out, value);
    };
    if source.keys.is_empty() || map.is_empty() {
        return write_sequence_item(out, value);
    }
    for (i, (key, value)) in map.iter().enumerate() {
        out.push_str(if i == 0 { "- " } else { "  " });
        let copied = source
            .keys
            .iter()
            .find(|k| k.name == *key)
            .filter(|_| before.get(key) == Some(value));
        match copied {
            Some(k) => out.push_str(&source.text[k.lines.start + 2..k.lines.end]),
            None => write_entry(out, key, value, 2),
        }
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
    fn input_ranges_that_follow_each_other_are_one_piece() {
        let input = "a: 1\n---\nb: 2\n--- # c\nc: 3\n";
        let mut e = Encoder::new(Format::Yaml);
        e.push_input(0, 0..5, false);
        e.push_input(0, 9..14, true);
        e.push(&json!({"x": 1}));
        e.push_input(0, 22..27, false);
        e.push_input(1, 0..5, false);
        let pieces = e.finish_pieces(None, &[]);
        assert_eq!(pieces.written, "---\nx: 1\n---\n---\n");
        assert_eq!(
            pieces.pieces,
            vec![
                Piece::Input {
                    input: 0,
                    range: 0..14
                },
                Piece::Written(0..13),
                Piece::Input {
                    input: 0,
                    range: 22..27
                },
                Piece::Written(13..17),
                Piece::Input {
                    input: 1,
                    range: 0..5
                },
            ]
        );
        let output = pieces.with_inputs(vec![input.into(), "d: 4\n".into()]);
        assert_eq!(
            output.to_text(),
            "a: 1\n---\nb: 2\n---\nx: 1\n---\nc: 3\n---\nd: 4\n"
        );
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
