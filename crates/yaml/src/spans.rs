//! Where the items of a top-level block sequence sit in the text, line by line, so a writer
//! can hand back an item (or a top-level key of an item) exactly as it came in. kpt reads a
//! KRM function's output and diffs it against the package: an item written back from its
//! own bytes shows no change, where a re-emitted one would lose its flow style and quotes.
//!
//! Only what can be cut out on whole lines is offered: block sequences of block mappings,
//! each item starting on its own line, each key of an item on its own line, indentation
//! without tabs. The caller checks that the text it keeps reads back to the value it
//! stands for (an alias to an anchor of another item, say, would not): this module finds
//! lines, it does not promise meaning.

use std::ops::Range;
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::Marker;

/// One item's lines, shifted left so its `-` is at column 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemText {
    pub text: String,
    /// The item's top-level keys, each a range of whole lines of `text`, in order. Each
    /// range starts with two columns of prefix (`- ` for the first key, two spaces for the
    /// others), then the key at column 2. Empty when the keys are not laid out that way.
    pub keys: Vec<KeyText>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct KeyText {
    pub name: String,
    pub lines: Range<usize>,
}

/// The items of the block sequence under the top-level mapping key `key` of the single
/// document `text`: one entry per item, `None` for an item that cannot be cut out on whole
/// lines. `None` overall when the document is not laid out that way (or does not parse).
pub fn sequence_items(text: &str, key: &str) -> Option<Vec<Option<ItemText>>> {
    let layout = Layout::read(text, key)?;
    let lines = line_starts(text);
    let line_text = |line: usize| -> &str {
        let start = lines.get(line).copied().unwrap_or(text.len());
        let end = lines.get(line + 1).copied().unwrap_or(text.len());
        &text[start..end]
    };
    let mut items = Vec::with_capacity(layout.items.len());
    for (i, item) in layout.items.iter().enumerate() {
        let next_start = match layout.items.get(i + 1) {
            None => Some(layout.end_line),
            Some(next) => next.start.and_then(|at| dash_line(at, &line_text)),
        };
        let start = item
            .start
            .and_then(|at| Some((at, dash_line(at, &line_text)?)));
        items.push(match (start, next_start) {
            (Some((at, first)), Some(end)) => item.cut(at, first..end, &line_text),
            _ => None,
        });
    }
    Some(items)
}

/// The line holding the `-` of the item whose first key is at `key`: the key's own line
/// (`- key: …`), or, above it past blank and comment lines, a line holding only the dash and
/// perhaps a comment (`- # the front door`, as kpt writes a file's leading comment).
fn dash_line<'t>(key: Position, line_text: &impl Fn(usize) -> &'t str) -> Option<usize> {
    let before_key: String = line_text(key.line).chars().take(key.col).collect();
    if before_key.contains('-') {
        return Some(key.line);
    }
    if !before_key.bytes().all(|b| b == b' ') {
        return None;
    }
    let mut line = key.line;
    while line > 0 {
        line -= 1;
        let text = line_text(line).trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let after_dash = text.strip_prefix('-')?.trim_start();
        return (after_dash.is_empty() || after_dash.starts_with('#')).then_some(line);
    }
    None
}

/// A position: 0-based line and 0-based character column.
#[derive(Debug, Clone, Copy)]
struct Position {
    line: usize,
    col: usize,
}

impl Position {
    fn of(mark: &Marker) -> Position {
        Position {
            line: mark.line().saturating_sub(1),
            col: mark.col(),
        }
    }
}

struct ItemLayout {
    /// Where the item's first key starts (the line holds its `-`). yaml-rust2 marks a
    /// scalar where it starts, but a collection somewhere after its indicator, so the item
    /// is placed by its first key.
    start: Option<Position>,
    /// The item is a mapping (block or flow: `cut` tells them apart by what precedes the
    /// first key).
    mapping: bool,
    keys: Vec<(String, Position)>,
}

struct Layout {
    items: Vec<ItemLayout>,
    /// The line the sequence ends before.
    end_line: usize,
}

enum Frame {
    Mapping { key_next: bool },
    Sequence,
}

impl Layout {
    fn read(text: &str, key: &str) -> Option<Layout> {
        let mut parser = Parser::new_from_str(text);
        let mut stack: Vec<Frame> = Vec::new();
        let mut documents = 0;
        // The depth of the sequence being cut up, once found.
        let mut in_items: Option<usize> = None;
        let mut wanted_value = false;
        let mut items: Vec<ItemLayout> = Vec::new();
        let mut end_line = None;
        loop {
            let (event, mark) = parser.next_token().ok()?;
            let at = Position::of(&mark);
            let depth = stack.len();
            // A node starting where the parent mapping expects a key is a key.
            let is_key = matches!(stack.last(), Some(Frame::Mapping { key_next: true }));
            let starts_node = matches!(
                event,
                Event::Scalar(..)
                    | Event::Alias(_)
                    | Event::SequenceStart(..)
                    | Event::MappingStart(..)
            );
            if starts_node {
                if let Some(items_depth) = in_items {
                    if depth == items_depth && !is_key {
                        items.push(ItemLayout {
                            start: None,
                            mapping: matches!(event, Event::MappingStart(..)),
                            keys: Vec::new(),
                        });
                    } else if depth == items_depth + 1 && is_key {
                        if let (Event::Scalar(name, ..), Some(item)) = (&event, items.last_mut()) {
                            item.start.get_or_insert(at);
                            item.keys.push((name.clone(), at));
                        }
                    }
                }
            }
            match event {
                Event::StreamEnd => break,
                Event::DocumentStart => {
                    documents += 1;
                    if documents > 1 {
                        return None;
                    }
                }
                Event::MappingStart(..) => {
                    stack.push(Frame::Mapping { key_next: true });
                    continue;
                }
                Event::SequenceStart(..) => {
                    if wanted_value && depth == 1 {
                        in_items = Some(depth + 1);
                    }
                    wanted_value = false;
                    stack.push(Frame::Sequence);
                    continue;
                }
                Event::MappingEnd | Event::SequenceEnd => {
                    if in_items == Some(depth) && matches!(event, Event::SequenceEnd) {
                        end_line = Some(at.line);
                        in_items = None;
                    }
                    stack.pop();
                }
                Event::Scalar(ref value, ..) => {
                    if depth == 1 && is_key {
                        wanted_value = value == key;
                    } else if depth == 1 {
                        wanted_value = false;
                    }
                }
                Event::Alias(_) => wanted_value = false,
                _ => {}
            }
            // A node ended: the parent mapping now expects the other half of its entry.
            if let Some(Frame::Mapping { key_next }) = stack.last_mut() {
                *key_next = !*key_next;
            }
        }
        Some(Layout {
            items,
            end_line: end_line?,
        })
    }
}

impl ItemLayout {
    /// The item's lines `lines`, shifted so its `-` is at column 0, or `None` when they
    /// cannot be cut out.
    fn cut<'t>(
        &self,
        start: Position,
        lines: Range<usize>,
        line_text: &impl Fn(usize) -> &'t str,
    ) -> Option<ItemText> {
        if !self.mapping || lines.is_empty() {
            return None;
        }
        let first = line_text(lines.start);
        // The first line must be `<spaces>-<spaces>key…` (nothing else before the key: a
        // `{` there is a flow mapping, a `[` a flow sequence around it), or `<spaces>-`
        // and a comment with the key below.
        let before_key: String = if start.line == lines.start {
            first.chars().take(start.col).collect()
        } else {
            first.trim_end().to_owned()
        };
        let dash = before_key.find('-')?;
        let after_dash = &before_key[dash + 1..];
        let after_ok = if start.line == lines.start {
            !after_dash.is_empty() && after_dash.bytes().all(|b| b == b' ')
        } else {
            let after = after_dash.trim_start();
            after.is_empty() || after.starts_with('#')
        };
        if !before_key[..dash].bytes().all(|b| b == b' ') || !after_ok {
            return None;
        }
        let mut text = String::new();
        let mut starts = Vec::with_capacity(lines.len());
        for line in lines.clone() {
            let original = line_text(line);
            let blanks = original.len() - original.trim_start_matches([' ', '\t']).len();
            if original[..blanks].contains('\t') {
                return None;
            }
            let rest = original.trim_start_matches(' ');
            let content = !rest.trim_end().is_empty() && !rest.starts_with('#');
            if blanks < dash && content {
                return None;
            }
            starts.push(text.len());
            text.push_str(&original[blanks.min(dash)..]);
        }
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let keys = self.key_ranges(&lines, dash, &starts, text.len());
        Some(ItemText { text, keys })
    }

    /// Each key's lines, when every key starts its own line at column `dash + 2`.
    fn key_ranges(
        &self,
        lines: &Range<usize>,
        dash: usize,
        starts: &[usize],
        len: usize,
    ) -> Vec<KeyText> {
        let laid_out = self.keys.iter().enumerate().all(|(i, (_, at))| {
            at.col == dash + 2
                && lines.contains(&at.line)
                && (i == 0) == (at.line == lines.start)
                && (i == 0 || at.line > self.keys[i - 1].1.line)
        });
        if !laid_out {
            return Vec::new();
        }
        self.keys
            .iter()
            .enumerate()
            .map(|(i, (name, at))| {
                let start = starts[at.line - lines.start];
                let end = self
                    .keys
                    .get(i + 1)
                    .map_or(len, |(_, next)| starts[next.line - lines.start]);
                KeyText {
                    name: name.clone(),
                    lines: start..end,
                }
            })
            .collect()
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .filter(|&i| i < text.len())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = "\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: Service
  metadata: {name: front, labels: {app: web}}
  spec:
    selector:
      app: \"web\"   # quoted
- kind: ConfigMap
  data: {a: 'x'}
functionConfig:
  kind: X
";

    #[test]
    fn items_and_their_keys_are_cut_on_whole_lines() {
        let items = sequence_items(LIST, "items").unwrap();
        assert_eq!(items.len(), 2);
        let first = items[0].as_ref().unwrap();
        assert_eq!(
            first.text,
            "- apiVersion: v1\n  kind: Service\n  metadata: {name: front, labels: {app: web}}\n  spec:\n    selector:\n      app: \"web\"   # quoted\n"
        );
        let names: Vec<&str> = first.keys.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["apiVersion", "kind", "metadata", "spec"]);
        assert_eq!(
            &first.text[first.keys[2].lines.clone()],
            "  metadata: {name: front, labels: {app: web}}\n"
        );
        assert_eq!(
            items[1].as_ref().unwrap().text,
            "- kind: ConfigMap\n  data: {a: 'x'}\n"
        );
    }

    #[test]
    fn indented_sequences_are_shifted_to_column_zero() {
        let text =
            "items:\n  -   kind: A\n      x: |\n        two\n\n         lines\n# c\n  - kind: B\n";
        let items = sequence_items(text, "items").unwrap();
        let a = items[0].as_ref().unwrap();
        assert_eq!(
            a.text,
            "-   kind: A\n    x: |\n      two\n\n       lines\n# c\n"
        );
        assert!(a.keys.is_empty(), "keys not at dash + 2 are not offered");
        assert_eq!(items[1].as_ref().unwrap().text, "- kind: B\n");
    }

    #[test]
    fn a_comment_after_the_dash_starts_the_item() {
        let text = "items:\n- # the front door\n  kind: A\n  x: 1\n-\n\n  kind: B\n";
        let items = sequence_items(text, "items").unwrap();
        let a = items[0].as_ref().unwrap();
        assert_eq!(a.text, "- # the front door\n  kind: A\n  x: 1\n");
        assert!(a.keys.is_empty(), "the first key is not on the dash line");
        assert_eq!(items[1].as_ref().unwrap().text, "-\n\n  kind: B\n");
    }

    #[test]
    fn what_cannot_be_cut_on_lines_is_not_offered() {
        assert_eq!(
            sequence_items("items: [{a: 1}]\n", "items"),
            Some(vec![None])
        );
        assert_eq!(
            sequence_items("{items: [{a: 1}]}\n", "items"),
            Some(vec![None])
        );
        assert_eq!(sequence_items("a: 1\n---\nitems:\n- a: 1\n", "items"), None);
        let items = sequence_items("items:\n- {a: 1}\n- - x\n- b: 1\n", "items").unwrap();
        assert_eq!(items[0], None);
        assert_eq!(items[1], None);
        assert!(items[2].is_some());
        assert_eq!(sequence_items("other:\n- a: 1\n", "items"), None);
    }
}
