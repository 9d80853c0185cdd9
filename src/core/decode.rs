//! Turns input bytes into documents the way kubectl reads them: YAML (1.1 scalars) or a
//! JSON stream, `---` separators with kubectl's rules, empty and null documents skipped.

use crate::core::diagnostic::Diagnostic;
use crate::core::jobs::Jobs;
use crate::core::origins::helm_source;
use crate::core::resource::{Declared, Origin};
use kadmit_yaml::compose::compose_with;
use kadmit_yaml::json::decode_json_stream_with;
use kadmit_yaml::split::{self, split_documents, Chunk, SplitError};
use kadmit_yaml::{Limits, TOO_MANY_NODES};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;

/// A top-level document and where it starts.
#[derive(Debug)]
pub struct Document {
    pub value: Value,
    pub origin: Origin,
}

/// Decodes every document of `input`, handing each document, or the problem that stopped
/// it, to `sink` in input order. A broken document does not stop the others being read.
pub fn decode_stream(
    input: &[u8],
    source: &Arc<str>,
    limits: &Limits,
    sink: impl FnMut(Result<Document, Diagnostic>),
) {
    decode_stream_with_texts(input, source, limits, |_, _| false, sink)
}

/// [`decode_stream`], showing `known` each YAML document's own text (the chunk between
/// `---` separators) and where it starts before it is read: when `known` answers `true`,
/// the document is taken as accounted for and not read (`--old`: an old object whose
/// text is a document of the stream is that document, without reading it twice).
/// One chunk at a time, on the calling thread: `known` and `sink` see the chunks in turn.
pub fn decode_stream_with_texts(
    input: &[u8],
    source: &Arc<str>,
    limits: &Limits,
    mut known: impl FnMut(&str, Origin) -> bool,
    mut sink: impl FnMut(Result<Document, Diagnostic>),
) {
    let mut sink = |d: Result<(Origin, Value), Diagnostic>| {
        sink(d.map(|(origin, value)| Document { value, origin }))
    };
    let text = match stream_text(input) {
        Ok(text) => text,
        Err(e) => return sink(Err(not_utf8(input, e, source))),
    };
    let keep = |_: Option<ChunkText<'_>>, value: Value| value;
    let split = SplitText {
        text: &text,
        yaml: (!is_json(&text)).then(|| split_documents(&text)),
    };
    let Some(chunks) = read_split(split, source, limits, &keep, &mut sink) else {
        return;
    };
    let mut index = 0;
    for chunk in chunks {
        if let Some(line) = first_content_line(&chunk) {
            if known(chunk.text, document_origin(source, index, line, None)) {
                index += 1;
                continue;
            }
        }
        let read = read_chunk(&chunk, limits, &keep);
        deliver(read, source, &mut index, &mut sink);
    }
}

/// The text between two `---` lines that a YAML document was read from, given with the
/// chunk's first document.
#[derive(Debug, Clone, Copy)]
pub struct ChunkText<'t> {
    pub text: &'t str,
    /// The chunk holds this one document: reading the text again gives its value.
    pub alone: bool,
    /// The chunk is this one document, it ends with a line break, and every YAML 1.1 and
    /// 1.2 reader reads it to the value kubectl reads (`Composed::portable`): an untouched
    /// document may be written back as this text (docs/yaml.md, "Untouched documents").
    pub portable: bool,
}

/// [`decode_stream`] spread over `jobs`: the documents of a batch of chunks are composed
/// in parallel, each (null ones skipped) turned by `prepare` into what the caller keeps
/// of it (given the chunk's own [`ChunkText`] for the first document of a YAML chunk, and the
/// document's value, which `prepare` may drop on the thread that built it), and handed
/// with its origin to `sink` on the calling thread, in input order. A batch covers about
/// [`Jobs::batch_bytes`] of input; the next batch is composed while `sink` takes one
/// ([`Jobs::map_in_order`]), so at most two batches are held at a time.
pub fn decode_stream_in_parallel<P: Send>(
    input: &[u8],
    source: &Arc<str>,
    limits: &Limits,
    jobs: &Jobs,
    prepare: impl Fn(Option<ChunkText<'_>>, Value) -> P + Sync,
    mut sink: impl FnMut(Result<(Origin, P), Diagnostic>),
) {
    match stream_text(input) {
        Ok(text) => {
            let split = split_text(&text, jobs);
            decode_split_in_parallel(split, source, limits, jobs, prepare, sink);
        }
        Err(e) => sink(Err(not_utf8(input, e, source))),
    }
}

/// A stream's text (its [`stream_text`]) cut where documents are read from: YAML at its
/// `---` lines (each part of the text searched on its own thread), or a JSON stream, read
/// whole. Cut before it is read, so that the caller knows how many documents at most
/// to hold room for.
pub struct SplitText<'t> {
    text: &'t str,
    /// `None`: a JSON stream.
    yaml: Option<Result<Vec<Chunk<'t>>, SplitError>>,
}

impl SplitText<'_> {
    /// How many YAML chunks there are: documents, but for chunks that hold several.
    pub fn chunks(&self) -> usize {
        match &self.yaml {
            Some(Ok(chunks)) => chunks.len(),
            _ => 0,
        }
    }
}

/// `text` (already checked to be UTF-8, without a byte-order mark, with LF line ends: its
/// [`stream_text`]) cut into what [`decode_split_in_parallel`] reads.
pub fn split_text<'t>(text: &'t str, jobs: &Jobs) -> SplitText<'t> {
    let yaml = (!is_json(text)).then(|| split_in_parallel(text, jobs));
    SplitText { text, yaml }
}

/// [`decode_stream_in_parallel`] of a stream already [`split_text`].
pub fn decode_split_in_parallel<P: Send>(
    split: SplitText<'_>,
    source: &Arc<str>,
    limits: &Limits,
    jobs: &Jobs,
    prepare: impl Fn(Option<ChunkText<'_>>, Value) -> P + Sync,
    mut sink: impl FnMut(Result<(Origin, P), Diagnostic>),
) {
    let Some(chunks) = read_split(split, source, limits, &prepare, &mut sink) else {
        return;
    };
    let mut index = 0;
    jobs.map_in_order(
        chunks,
        |chunk| chunk.text.len(),
        |chunk| read_chunk(&chunk, limits, &prepare),
        |read| deliver(read, source, &mut index, &mut sink),
    );
}

/// A JSON stream starts with `{` (kubectl's check).
fn is_json(text: &str) -> bool {
    text.trim_start().starts_with('{')
}

/// The YAML chunks of a split stream; `None` when there are none to read: a JSON stream
/// (read here, whole, into `sink`) or a stream that does not split into documents (the
/// problem went to `sink`).
fn read_split<'t, P>(
    split: SplitText<'t>,
    source: &Arc<str>,
    limits: &Limits,
    prepare: &impl Fn(Option<ChunkText<'_>>, Value) -> P,
    sink: &mut impl FnMut(Result<(Origin, P), Diagnostic>),
) -> Option<Vec<Chunk<'t>>> {
    match split.yaml {
        None => {
            decode_json(split.text, source, limits, &mut |document| {
                sink(document.map(|d| (d.origin, prepare(None, d.value))))
            });
            None
        }
        Some(Ok(chunks)) => Some(chunks),
        Some(Err(e)) => {
            sink(Err(input_error(source, e.document, e.line, &e.message)));
            None
        }
    }
}

/// [`split_documents`], each part of the text searched for separators on its own thread.
fn split_in_parallel<'t>(text: &'t str, jobs: &Jobs) -> Result<Vec<Chunk<'t>>, SplitError> {
    let parts = split::parts(text, jobs.threads());
    let lines = jobs.map(parts, |part| split::separator_lines(text, part));
    split::chunks_of(text, &lines)
}

/// The line a chunk's first document starts on: its first line that is neither blank nor
/// a comment (`None`: the chunk holds no document).
fn first_content_line(chunk: &Chunk<'_>) -> Option<usize> {
    let start = chunk
        .text
        .lines()
        .position(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))?;
    Some(chunk.first_line + start)
}

/// A chunk's documents as read (first line, the file Helm's comment names, what `prepare`
/// made of it; `None` for a null document, which is counted and skipped), or the line and
/// message of what stopped it. Independent of every other chunk: this is the part that
/// runs in parallel.
type ChunkRead<P> = Result<Vec<(usize, Option<Arc<Declared>>, Option<P>)>, (usize, String)>;

fn read_chunk<P>(
    chunk: &Chunk<'_>,
    limits: &Limits,
    prepare: &impl Fn(Option<ChunkText<'_>>, Value) -> P,
) -> ChunkRead<P> {
    let documents =
        compose_with(chunk.text, limits).map_err(|e| (chunk.first_line + e.line - 1, e.message))?;
    // Helm's `# Source:` comment opens the chunk: it names the first document.
    let mut helm = helm_source(chunk.text).map(Arc::new);
    // A text without its final line break is not copied: adding one could change a `|+`
    // block scalar's value, and leaving it out would join the next document's separator.
    let alone = documents.len() == 1;
    let ended = chunk.text.ends_with('\n');
    Ok(documents
        .into_iter()
        .enumerate()
        .map(|(i, doc)| {
            let line = chunk.first_line + doc.line - 1;
            let own = ChunkText {
                text: chunk.text,
                alone,
                portable: alone && ended && doc.portable,
            };
            let prepared =
                (!doc.value.is_null()).then(|| prepare((i == 0).then_some(own), doc.value));
            (line, helm.take(), prepared)
        })
        .collect())
}

/// Hands a chunk's documents (null ones skipped) or its problem to `sink`, numbering the
/// documents of the stream in order.
fn deliver<P>(
    read: ChunkRead<P>,
    source: &Arc<str>,
    index: &mut usize,
    sink: &mut impl FnMut(Result<(Origin, P), Diagnostic>),
) {
    match read {
        Ok(documents) => {
            for (line, declared, prepared) in documents {
                let origin = document_origin(source, *index, line, declared);
                *index += 1;
                if let Some(prepared) = prepared {
                    sink(Ok((origin, prepared)));
                }
            }
        }
        Err((line, message)) => {
            sink(Err(input_error(source, *index, line, &message)));
            *index += 1;
        }
    }
}

fn document_origin(
    source: &Arc<str>,
    index: usize,
    line: usize,
    declared: Option<Arc<Declared>>,
) -> Origin {
    Origin {
        source: source.clone(),
        index,
        line,
        list_item: None,
        declared,
    }
}

fn not_utf8(input: &[u8], e: std::str::Utf8Error, source: &Arc<str>) -> Diagnostic {
    let line = input[..e.valid_up_to()]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1;
    input_error(source, 0, line, "input is not valid UTF-8")
}

/// The text a stream is read as: UTF-8, without a byte-order mark, CRLF line ends turned
/// into LF (so lines and columns are the same everywhere kadmit looks at the text).
pub fn stream_text(input: &[u8]) -> Result<Cow<'_, str>, std::str::Utf8Error> {
    std::str::from_utf8(input).map(normalised_text)
}

/// [`stream_text`] of text already known to be UTF-8.
pub fn normalised_text(text: &str) -> Cow<'_, str> {
    normalised_text_in_parallel(text, &Jobs::sequential())
}

/// [`normalised_text`], each part of the text looked at for a CR on its own thread.
pub fn normalised_text_in_parallel<'t>(text: &'t str, jobs: &Jobs) -> Cow<'t, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let parts = split::parts(text, jobs.threads());
    if jobs
        .map(parts, |part| text[part].contains('\r'))
        .contains(&true)
    {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

fn decode_json(
    text: &str,
    source: &Arc<str>,
    limits: &Limits,
    sink: &mut impl FnMut(Result<Document, Diagnostic>),
) {
    let mut index = 0;
    let read = decode_json_stream_with(text, limits, |value, line| {
        if !value.is_null() {
            sink(Ok(Document {
                value,
                origin: Origin {
                    source: source.clone(),
                    index,
                    line,
                    list_item: None,
                    declared: None,
                },
            }));
        }
        index += 1;
    });
    match read {
        Ok(()) => {}
        Err(e) => sink(Err(Diagnostic::input(format!(
            "cannot read JSON: {}",
            with_hint(&e.message)
        ))
        .with_origin(&Origin {
            source: source.clone(),
            index: e.document,
            line: e.line,
            list_item: None,
            declared: None,
        }))),
    }
}

/// Names the flag that raises the node limit when that is what refused the document.
fn with_hint(message: &str) -> String {
    if message.starts_with(TOO_MANY_NODES) {
        format!("{message}; --max-document-nodes raises the limit")
    } else {
        message.to_owned()
    }
}

fn input_error(source: &Arc<str>, index: usize, line: usize, message: &str) -> Diagnostic {
    Diagnostic::input(format!("cannot read YAML: {}", with_hint(message))).with_origin(&Origin {
        source: source.clone(),
        index,
        line,
        list_item: None,
        declared: None,
    })
}

/// Decodes a whole input into a vector (for configuration files and tests), within the
/// default limits.
pub fn decode_all(input: &[u8], source: &Arc<str>) -> (Vec<Document>, Vec<Diagnostic>) {
    decode_all_with(input, source, &Limits::default())
}

/// Decodes a whole input into a vector within `limits`.
pub fn decode_all_with(
    input: &[u8],
    source: &Arc<str>,
    limits: &Limits,
) -> (Vec<Document>, Vec<Diagnostic>) {
    let mut docs = Vec::new();
    let mut problems = Vec::new();
    decode_stream(input, source, limits, |d| match d {
        Ok(doc) => docs.push(doc),
        Err(problem) => problems.push(problem),
    });
    (docs, problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decode(text: &str) -> (Vec<Document>, Vec<Diagnostic>) {
        decode_all(text.as_bytes(), &Arc::from("stdin"))
    }

    #[test]
    fn skips_empty_and_null_documents_and_keeps_lines() {
        let (docs, problems) = decode("---\n# only a comment\n---\n~\n---\na: 1\n---\n\nb: 2\n");
        assert!(problems.is_empty(), "{problems:?}");
        let got: Vec<_> = docs
            .iter()
            .map(|d| (d.value.clone(), d.origin.line))
            .collect();
        assert_eq!(got, vec![(json!({"a": 1}), 6), (json!({"b": 2}), 9)]);
    }

    #[test]
    fn reports_every_broken_document_with_its_line() {
        let (docs, problems) = decode("a: 1\n---\nb: [\n---\nc: 3\n---\nd: 1\nd: 2\n");
        assert_eq!(docs.len(), 2);
        assert_eq!(problems.len(), 2);
        assert_eq!(problems[1].origin.as_ref().unwrap().line, 8);
        assert!(problems[1].message.contains("duplicate key"));
    }

    #[test]
    fn json_streams_and_crlf() {
        let (docs, _) = decode("{\"a\": 1}\r\n{\"b\": \"yes\"}");
        assert_eq!(docs[1].value, json!({"b": "yes"}));
        let (docs, _) = decode("a: 1\r\nb: on\r\n");
        assert_eq!(docs[0].value, json!({"a": 1, "b": true}));
    }

    #[test]
    fn helm_source_comments_name_their_document() {
        let (docs, _) = decode(
            "---\n# Source: web/templates/a.yaml\na: 1\n---\n# Source: web/templates/b.yaml\nb: 2\n---\nc: 3\n",
        );
        let files: Vec<_> = docs
            .iter()
            .map(|d| d.origin.declared.as_ref().map(|d| d.file.clone()))
            .collect();
        assert_eq!(
            files,
            [
                Some("web/templates/a.yaml".to_owned()),
                Some("web/templates/b.yaml".to_owned()),
                None
            ]
        );
        assert_eq!(
            docs[1].origin.to_string(),
            "web/templates/b.yaml (via stdin, document 2, line 6)"
        );
    }
}
