//! Splits a YAML stream into documents on `---` lines, with kubectl's rules
//! (apimachinery `YAMLReader`): a line starting with `---` separates documents, and only
//! spaces or a `#` comment may follow it.

use super::compose::control_character_at;

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

/// At most how many chunks [`split_documents`] makes of `stream`: one more than the lines
/// that start with `---`. A cheap count, to size the lists that hold a stream's documents
/// once: grown by doubling, a list of a million small documents' records holds up to
/// twice their size, and three times while it is copied to grow.
pub fn chunks_at_most(stream: &[u8]) -> usize {
    1 + usize::from(stream.starts_with(b"---"))
        + memchr::memmem::find_iter(stream, b"\n---").count()
}

pub fn split_documents(stream: &str) -> Result<Vec<Chunk<'_>>, SplitError> {
    let bytes = stream.as_bytes();
    let mut chunks = Vec::with_capacity(chunks_at_most(bytes));
    let mut start = 0;
    let mut start_line = 1;
    // Line numbers are counted lazily, from `counted` (at line `counted_line`) on, only
    // where a separator is found: most lines are not looked at one by one.
    let mut counted = 0;
    let mut counted_line = 1;
    let separators = memchr::memmem::find_iter(bytes, b"\n---").map(|at| at + 1);
    let first = stream.starts_with("---").then_some(0);
    for line_start in first.into_iter().chain(separators) {
        counted_line += count_line_breaks(&bytes[counted..line_start]);
        counted = line_start;
        let line_end = stream[line_start..]
            .find('\n')
            .map_or(stream.len(), |at| line_start + at + 1);
        let trimmed = stream[line_start + 3..line_end].trim();
        if !trimmed.is_empty() && !trimmed.starts_with('#') {
            return Err(SplitError {
                message: format!("invalid YAML document separator: {trimmed}"),
                line: counted_line,
                document: chunks.len() + usize::from(has_content(&stream[start..line_start])),
            });
        }
        push_chunk(&mut chunks, &stream[start..line_start], start_line);
        start = line_end;
        start_line = counted_line + 1;
    }
    push_chunk(&mut chunks, &stream[start..], start_line);
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
fn push_chunk<'a>(chunks: &mut Vec<Chunk<'a>>, text: &'a str, first_line: usize) {
    if has_content(text) || control_character_at(text).is_some() {
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
                push_chunk(&mut chunks, &stream[start..offset], start_line);
                start = offset + line.len();
                start_line = index + 2;
            }
            offset += line.len();
        }
        push_chunk(&mut chunks, &stream[start..], start_line);
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
            assert_eq!(split_documents(stream), line_by_line(stream), "{stream:?}");
        }
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
