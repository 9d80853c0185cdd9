//! What a run writes on stdout. In a YAML stream an untouched document is written as its
//! own text (docs/yaml.md, "Untouched documents"): rather than copying that text into the
//! output, the output names the range of the input it is, so a large stream of mostly
//! untouched documents is written straight from the input it was read from, without a
//! second copy of it in memory or a serial pass copying it there
//! (docs/performance.md, "`--jobs` scaling").

use std::borrow::Cow;
use std::io::Write;
use std::ops::Range;

/// A part of the output, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// Text the encoder wrote: a range of [`Output`]'s `written`.
    Written(Range<usize>),
    /// A range of the run's input number `input` (its text as read: UTF-8, LF line ends).
    Input { input: usize, range: Range<usize> },
}

/// The encoder's text and the pieces that interleave it with ranges of the inputs; the
/// inputs are attached when the run is over ([`Pieces::with_inputs`]).
#[derive(Debug)]
pub struct Pieces {
    pub written: String,
    /// Empty: the output is `written` alone.
    pub pieces: Vec<Piece>,
}

impl Pieces {
    /// The output of a run whose inputs were `inputs`. Inputs the run owns are kept in it;
    /// when one a piece names was lent (a library call over borrowed bytes), the output
    /// is copied out of them into one text instead.
    pub fn with_inputs(self, inputs: Vec<Cow<'_, str>>) -> Output {
        if self.pieces.is_empty() {
            return Output::text(self.written);
        }
        let lent = self.pieces.iter().any(|piece| match piece {
            Piece::Input { input, .. } => matches!(inputs[*input], Cow::Borrowed(_)),
            Piece::Written(_) => false,
        });
        let output = Output {
            written: self.written,
            pieces: self.pieces,
            inputs: Vec::new(),
        };
        if lent {
            return Output::text(output.assemble(&inputs));
        }
        // A lent input no piece names is not copied: it is never written from.
        let inputs = inputs
            .into_iter()
            .map(|text| match text {
                Cow::Owned(text) => text,
                Cow::Borrowed(_) => String::new(),
            })
            .collect();
        Output { inputs, ..output }
    }
}

/// A run's stdout.
#[derive(Debug, Default)]
pub struct Output {
    written: String,
    pieces: Vec<Piece>,
    inputs: Vec<String>,
}

impl Output {
    /// An output that is this text alone.
    pub fn text(written: String) -> Output {
        Output {
            written,
            pieces: Vec::new(),
            inputs: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        if self.pieces.is_empty() {
            return self.written.len();
        }
        self.pieces
            .iter()
            .map(|piece| self.slice(piece, &self.inputs).len())
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The whole output as one text (copied together when it is in pieces).
    pub fn to_text(&self) -> Cow<'_, str> {
        if self.pieces.is_empty() {
            Cow::Borrowed(&self.written)
        } else {
            Cow::Owned(self.assemble(&self.inputs))
        }
    }

    /// Writes the output, piece by piece: large pieces go to `out` as they are, so `out`
    /// should buffer small ones.
    pub fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        if self.pieces.is_empty() {
            return out.write_all(self.written.as_bytes());
        }
        for piece in &self.pieces {
            out.write_all(self.slice(piece, &self.inputs).as_bytes())?;
        }
        Ok(())
    }

    fn assemble<S: AsRef<str>>(&self, inputs: &[S]) -> String {
        let mut text = String::with_capacity(
            self.pieces
                .iter()
                .map(|piece| self.slice(piece, inputs).len())
                .sum(),
        );
        for piece in &self.pieces {
            text.push_str(self.slice(piece, inputs));
        }
        text
    }

    fn slice<'a, S: AsRef<str>>(&'a self, piece: &Piece, inputs: &'a [S]) -> &'a str {
        match piece {
            Piece::Written(range) => &self.written[range.clone()],
            Piece::Input { input, range } => &inputs[*input].as_ref()[range.clone()],
        }
    }
}

impl PartialEq<&str> for Output {
    fn eq(&self, other: &&str) -> bool {
        self.to_text() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces() -> Pieces {
        Pieces {
            written: "---\nb: 2\n".into(),
            pieces: vec![
                Piece::Input {
                    input: 0,
                    range: 0..5,
                },
                Piece::Written(0..9),
                Piece::Input {
                    input: 1,
                    range: 2..7,
                },
            ],
        }
    }

    #[test]
    fn owned_inputs_are_kept_and_written_piece_by_piece() {
        let inputs = vec![
            Cow::Owned("a: 1\nzz".to_owned()),
            Cow::Owned("..c: 3\n".to_owned()),
        ];
        let output = pieces().with_inputs(inputs);
        assert_eq!(output.inputs.len(), 2);
        assert_eq!(output.to_text(), "a: 1\n---\nb: 2\nc: 3\n");
        assert_eq!(output.len(), 19);
        let mut written = Vec::new();
        output.write_to(&mut written).unwrap();
        assert_eq!(written, b"a: 1\n---\nb: 2\nc: 3\n");
    }

    #[test]
    fn lent_inputs_are_copied_into_one_text() {
        let lent = String::from("..c: 3\n");
        let inputs = vec![
            Cow::Owned("a: 1\nzz".to_owned()),
            Cow::Borrowed(lent.as_str()),
        ];
        let output = pieces().with_inputs(inputs);
        assert!(output.pieces.is_empty() && output.inputs.is_empty());
        assert_eq!(output.written, "a: 1\n---\nb: 2\nc: 3\n");
    }

    #[test]
    fn text_alone() {
        let output = Pieces {
            written: "x: 1\n".into(),
            pieces: Vec::new(),
        }
        .with_inputs(vec![Cow::Borrowed("unused")]);
        assert_eq!(output, "x: 1\n");
        assert!(Output::default().is_empty());
    }
}
