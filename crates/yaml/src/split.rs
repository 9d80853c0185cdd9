//! Splits a YAML stream into documents on `---` lines, with kubectl's rules
//! (apimachinery `YAMLReader`): a line starting with `---` separates documents, and only
//! spaces or a `#` comment may follow it.

use super::compose::control_character_at;
use std::ops::Range;

#[derive(Debug, PartialEq)]
pub struct Chunk<'a> {
    pub text: &'a str,
    /// 1-based line of the chunk's first line in the whole stream.
    pub first_line: usize,
}

#[derive(Debug, PartialEq)]
pub struct SplitError {
    pub message: String,
    pub line: usize,
    /// 0-based index of the document the bad separator would have started.
    pub document: usize,
}

pub fn split_documents(stream: &str) -> Result<Vec<Chunk<'_>>, SplitError> {
    chunks_of(stream, &[separator_lines(stream, 0..stream.len())])
}

/// `stream` cut into about `count` parts, each from a line start to a line start (or the
/// end), for [`separator_lines`] to scan each on its own: a separator is a whole line, so
/// every one of them lies in one part.
pub fn parts(stream: &str, count: usize) -> Vec<Range<usize>> {
    let bytes = stream.as_bytes();
    let size = stream.len().div_ceil(count.max(1)).max(1);
    let mut parts = Vec::with_capacity(count.max(1));
    let mut start = 0;
    while start < bytes.len() {
        let end = match start.checked_add(size).filter(|&at| at < bytes.len()) {
            Some(at) => memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |nl| at + nl + 1),
            None => bytes.len(),
        };
        parts.push(start..end);
        start = end;
    }
    if parts.is_empty() {
        parts.push(0..0);
    }
    parts
}

/// The lines of one part of a stream (see [`parts`]) that start with `---`, found and
/// looked at without the rest of the stream: putting the chunks together then needs no
/// second look at the text (on another thread, it would miss the cache at every line).
#[derive(Debug)]
pub struct SeparatorLines<'a> {
    lines: Vec<SeparatorLine<'a>>,
    /// The part's line breaks.
    line_breaks: usize,
}

#[derive(Debug)]
struct SeparatorLine<'a> {
    /// The chunk before it, when that starts in the same part (after another separator).
    before: Option<&'a str>,
    /// Where it starts and ends (after its line break) in the stream.
    start: usize,
    end: usize,
    /// Its line number within the part, 0-based.
    line: usize,
    /// Only spaces or a comment follow `---`.
    valid: bool,
    /// Whether the chunk after it has content, when that is decided within the part.
    content_after: Option<bool>,
}

/// The `---` lines of `stream[part]`. Line numbers are counted lazily, up to each
/// separator and then to the part's end: most lines are not looked at one by one.
pub fn separator_lines(stream: &str, part: Range<usize>) -> SeparatorLines<'_> {
    let text = &stream[part.clone()];
    let bytes = text.as_bytes();
    let first = bytes.starts_with(b"---").then_some(0);
    let starts: Vec<usize> = first
        .into_iter()
        .chain(memchr::memmem::find_iter(bytes, b"\n---").map(|at| at + 1))
        .collect();
    let mut lines = Vec::with_capacity(starts.len());
    let mut previous_end = None;
    let mut counted = 0;
    let mut line = 0;
    for (i, &at) in starts.iter().enumerate() {
        line += count_line_breaks(&bytes[counted..at]);
        counted = at;
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |nl| at + nl + 1);
        let rest = text[at + 3..end].trim();
        let next = starts.get(i + 1).copied();
        // A chunk that runs past the part is decided when the chunks are put together.
        let content_after = match (has_content(&text[end..next.unwrap_or(bytes.len())]), next) {
            (true, _) => Some(true),
            (false, Some(_)) => Some(false),
            (false, None) => None,
        };
        let before = previous_end.map(|previous| &text[previous..at]);
        previous_end = Some(end);
        lines.push(SeparatorLine {
            before,
            start: part.start + at,
            end: part.start + end,
            line,
            valid: rest.is_empty() || rest.starts_with('#'),
            content_after,
        });
    }
    let line_breaks = line + count_line_breaks(&bytes[counted..]);
    SeparatorLines { lines, line_breaks }
}

/// The chunks of `stream`, from the [`separator_lines`] of its [`parts`] in order.
pub fn chunks_of<'a>(
    stream: &'a str,
    parts: &[SeparatorLines<'a>],
) -> Result<Vec<Chunk<'a>>, SplitError> {
    let separators: usize = parts.iter().map(|part| part.lines.len()).sum();
    let mut chunks = Vec::with_capacity(separators + 1);
    let mut start = 0;
    let mut start_line = 1;
    let mut content = None;
    let mut lines_before = 0;
    for part in parts {
        for separator in &part.lines {
            let line = lines_before + separator.line + 1;
            if !separator.valid {
                let rest = stream[separator.start + 3..separator.end].trim();
                return Err(SplitError {
                    message: format!("invalid YAML document separator: {rest}"),
                    line,
                    document: chunks.len()
                        + usize::from(has_content(&stream[start..separator.start])),
                });
            }
            let text = separator
                .before
                .unwrap_or_else(|| &stream[start..separator.start]);
            push_chunk(&mut chunks, text, start_line, content);
            start = separator.end;
            start_line = line + 1;
            content = separator.content_after;
        }
        lines_before += part.line_breaks;
    }
    push_chunk(&mut chunks, &stream[start..], start_line, content);
    Ok(chunks)
}

/// How many `\n` `bytes` holds. Counted in blocks of at most 255 bytes, each into a `u8`:
/// the compiler then compares and adds 16 bytes at a time, where a count kept in a `usize`
/// took two per step (a third of a pass-through run's splitting).
fn count_line_breaks(bytes: &[u8]) -> usize {
    let mut blocks = bytes.chunks_exact(255);
    let mut count = 0;
    for block in blocks.by_ref() {
        count += usize::from(
            block
                .iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from(b == b'\n'))),
        );
    }
    count + blocks.remainder().iter().filter(|&&b| b == b'\n').count()
}

/// A chunk with only comments and blank lines is no document, unless it holds a character
/// go-yaml refuses: kubectl still hands it to go-yaml, which fails on it.
/// `content`: whether `text` has content, when already known.
fn push_chunk<'a>(
    chunks: &mut Vec<Chunk<'a>>,
    text: &'a str,
    first_line: usize,
    content: Option<bool>,
) {
    if content.unwrap_or_else(|| has_content(text)) || control_character_at(text).is_some() {
        chunks.push(Chunk { text, first_line });
    }
}

fn has_content(text: &str) -> bool {
    text.lines().any(|l| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_separator_lines_only() {
        let chunks = split_documents("a: 1\n--- # c\nb: |\n  ---\n---\n\n---\nc: 3").unwrap();
        let texts: Vec<_> = chunks.iter().map(|c| (c.text, c.first_line)).collect();
        assert_eq!(
            texts,
            vec![("a: 1\n", 1), ("b: |\n  ---\n", 3), ("c: 3", 8)]
        );
    }

    #[test]
    fn separators_at_the_start_the_end_and_back_to_back() {
        for (stream, expected) in [
            ("---\na: 1\n", vec![("a: 1\n", 2)]),
            ("---", vec![]),
            ("a: 1\n---", vec![("a: 1\n", 1)]),
            ("a: 1\n---\n---\nb: 2", vec![("a: 1\n", 1), ("b: 2", 4)]),
            ("a: |\n  ---\n ---\n", vec![("a: |\n  ---\n ---\n", 1)]),
            (
                "a: 1\r\n---\r\nb: 2\r\n",
                vec![("a: 1\r\n", 1), ("b: 2\r\n", 3)],
            ),
        ] {
            let chunks = split_documents(stream).unwrap();
            let texts: Vec<_> = chunks.iter().map(|c| (c.text, c.first_line)).collect();
            assert_eq!(texts, expected, "{stream:?}");
        }
        let e = split_documents("a: 1\n\n\n---x\n").unwrap_err();
        assert_eq!(
            (e.line, e.document, e.message.as_str()),
            (4, 1, "invalid YAML document separator: x")
        );
    }

    /// The line-by-line reading this module did before it searched for separators.
    fn line_by_line(stream: &str) -> Result<Vec<Chunk<'_>>, SplitError> {
        let mut chunks = Vec::new();
        let mut start = 0;
        let mut start_line = 1;
        let mut offset = 0;
        for (index, line) in stream.split_inclusive('\n').enumerate() {
            if let Some(rest) = line.strip_prefix("---") {
                let trimmed = rest.trim();
                if !trimmed.is_empty() && !trimmed.starts_with('#') {
                    return Err(SplitError {
                        message: format!("invalid YAML document separator: {trimmed}"),
                        line: index + 1,
                        document: chunks.len() + usize::from(has_content(&stream[start..offset])),
                    });
                }
                push_chunk(&mut chunks, &stream[start..offset], start_line, None);
                start = offset + line.len();
                start_line = index + 2;
            }
            offset += line.len();
        }
        push_chunk(&mut chunks, &stream[start..], start_line, None);
        Ok(chunks)
    }

    #[test]
    fn agrees_with_the_line_by_line_reading() {
        let pieces = [
            "---", "-", "a", " ", "\n", "\r\n", "#", "\u{1}", "é", "\u{2028}",
        ];
        let mut streams = vec![String::new()];
        for _ in 0..5 {
            let longer: Vec<String> = streams
                .iter()
                .flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}")))
                .collect();
            streams.extend(longer);
        }
        for stream in &streams {
            let expected = line_by_line(stream);
            assert_eq!(split_documents(stream), expected, "{stream:?}");
            for count in [2, 3, 7] {
                let lines: Vec<_> = parts(stream, count)
                    .into_iter()
                    .map(|part| separator_lines(stream, part))
                    .collect();
                assert_eq!(
                    chunks_of(stream, &lines),
                    expected,
                    "{stream:?} in {count} parts"
                );
            }
        }
    }

    #[test]
    fn parts_start_at_line_starts_and_cover_the_stream() {
        let stream = "a: 1\n---\nb: 2\nc: 3\n---\nd";
        for count in 1..12 {
            let cut = parts(stream, count);
            assert_eq!(cut.first().unwrap().start, 0);
            assert_eq!(cut.last().unwrap().end, stream.len());
            for pair in cut.windows(2) {
                assert_eq!(pair[0].end, pair[1].start);
                assert_eq!(&stream[pair[0].end - 1..pair[0].end], "\n");
            }
        }
        assert_eq!(parts("", 4), vec![0..0]);
    }

    #[test]
    fn counts_line_breaks_across_blocks() {
        for len in [0, 1, 254, 255, 256, 510, 511, 1000] {
            let text: Vec<u8> = (0..len)
                .map(|i| if i % 3 == 0 { b'\n' } else { b'a' })
                .collect();
            let expected = text.iter().filter(|&&b| b == b'\n').count();
            assert_eq!(count_line_breaks(&text), expected, "{len} bytes");
        }
        assert_eq!(count_line_breaks(&[b'\n'; 600]), 600);
    }

    #[test]
    fn refuses_content_after_separator() {
        let e = split_documents("a: 1\n--- b: 2\n").unwrap_err();
        assert_eq!((e.line, e.document), (2, 1));
        assert!(e.message.contains("b: 2"));
    }
}
