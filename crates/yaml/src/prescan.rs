//! One pass over a document's bytes answering the three questions asked before it is
//! parsed: where the first character go-yaml refuses is, whether the text may hold a flow
//! colon that go-yaml reads differently from yaml-rust2, and whether every byte is one
//! the block-subset reader takes. Three separate scans cost about a fifth of reading a
//! manifest; most bytes are plain ASCII that answers none of them, and a table lookup
//! passes over those.

/// What [`prescan`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Prescan {
    /// Byte offset of the first character go-yaml's reader refuses; when set, the other
    /// fields describe only the text before it.
    pub control_at: Option<usize>,
    /// A `:` followed by a flow indicator after something other than a double quote (the
    /// common JSON `"key":{` needs no rewrite).
    pub flow_colon: bool,
    /// No tab, carriage return, byte order mark or Unicode line break (NEL, U+2028,
    /// U+2029): bytes the block-subset reader takes.
    pub block_bytes: bool,
}

/// Bytes that answer none of the questions: printable ASCII but `:`, the line feed,
/// UTF-8 continuation bytes and the lead bytes of characters that are always allowed.
const QUIET: [bool; 256] = {
    let mut quiet = [false; 256];
    let mut b = 0;
    while b < 256 {
        quiet[b] = match b as u8 {
            b':' => false,
            b'\n' | 0x20..=0x7e => true,
            // Lead bytes of the characters looked at: U+0080-U+009F (C1 controls, NEL),
            // U+2028/U+2029, U+FEFF and U+FFFE/U+FFFF.
            0xc2 | 0xe2 | 0xef => false,
            0x80.. => true,
            _ => false,
        };
        b += 1;
    }
    quiet
};

pub(crate) fn prescan(text: &str) -> Prescan {
    let bytes = text.as_bytes();
    let mut found = Prescan {
        control_at: None,
        flow_colon: false,
        block_bytes: true,
    };
    let mut i = 0;
    while i < bytes.len() {
        if let Some(quiet) = quiet_ascii_run(&bytes[i..]) {
            i += quiet;
            if quiet == 8 {
                continue;
            }
        }
        let b = bytes[i];
        if QUIET[b as usize] {
            i += 1;
            continue;
        }
        let next = bytes.get(i + 1).copied();
        let after = bytes.get(i + 2).copied();
        match b {
            b':' => {
                if i > 0
                    && bytes[i - 1] != b'"'
                    && matches!(next, Some(b',' | b'[' | b']' | b'{' | b'}'))
                {
                    found.flow_colon = true;
                }
            }
            b'\t' | b'\r' => found.block_bytes = false,
            // Valid UTF-8: these are always the first byte of a character.
            0xc2 => match next {
                Some(0x85) => found.block_bytes = false,
                Some(0x80..=0x9f) => {
                    found.control_at = Some(i);
                    return found;
                }
                _ => {}
            },
            0xe2 => {
                if next == Some(0x80) && matches!(after, Some(0xa8 | 0xa9)) {
                    found.block_bytes = false;
                }
            }
            0xef => match (next, after) {
                (Some(0xbf), Some(0xbe | 0xbf)) => {
                    found.control_at = Some(i);
                    return found;
                }
                (Some(0xbb), Some(0xbf)) => found.block_bytes = false,
                _ => {}
            },
            // The other C0 controls and DEL.
            _ => {
                found.control_at = Some(i);
                return found;
            }
        }
        i += 1;
    }
    found
}

/// How many of the next eight bytes are quiet ASCII (printable but `:`, or a line
/// feed), read as one word: most of a manifest is, and a byte at a time that was a tenth
/// of reading a CRD set. `None` when fewer than eight bytes are left or one is not ASCII
/// (the byte loop then decides).
fn quiet_ascii_run(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let word = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
    if word & HIGH != 0 {
        return None;
    }
    // Every byte is below 0x80, so none of these sums carries into the next byte: each
    // byte's high bit says exactly whether that byte is the one looked for.
    let equal = |b: u8| !((word ^ (ONES * u64::from(b))) + ONES * 0x7f) & HIGH;
    let control = !(word + ONES * 0x60) & HIGH;
    let delete = (word + ONES) & HIGH;
    let loud = (control & !equal(b'\n')) | delete | equal(b':');
    Some(loud.trailing_zeros() as usize / 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slow(text: &str) -> Prescan {
        let control_at = crate::compose::control_character_at(text);
        let upto = &text[..control_at.unwrap_or(text.len())];
        Prescan {
            control_at,
            flow_colon: upto.as_bytes().windows(3).any(|w| {
                w[1] == b':' && matches!(w[2], b',' | b'[' | b']' | b'{' | b'}') && w[0] != b'"'
            }),
            block_bytes: !upto.contains(['\t', '\r', '\u{85}', '\u{2028}', '\u{2029}', '\u{feff}']),
        }
    }

    #[test]
    fn agrees_with_the_scans_it_replaces() {
        let pieces = [
            "a", ":", ",", "[", "]", "{", "}", "\"", " ", "\n", "\t", "\r", "\u{1}", "\u{7f}",
            "\u{80}", "\u{85}", "\u{9f}", "\u{a0}", "\u{2028}", "\u{2029}", "\u{2030}", "\u{feff}",
            "\u{fffd}", "\u{fffe}", "\u{ffff}", "é", "日", "😀",
        ];
        let mut texts = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}")))
                .collect();
            texts.extend(longer);
        }
        for text in &texts {
            assert_eq!(prescan(text), slow(text), "{text:?}");
        }
    }

    /// Texts long enough to be read a word at a time, each piece at every offset of a word.
    #[test]
    fn agrees_word_at_a_time() {
        let pieces = [
            "a", ":", "\n", "\t", "\r", "\u{1}", "\u{1f}", " ", "~", "\u{7f}", "\u{85}", "\u{9f}",
            "é", "\u{2028}", "\u{feff}", "\u{ffff}", ":{", "\":[", "{", "\"",
        ];
        for piece in pieces {
            for other in pieces {
                for before in 0..20 {
                    for after in [0, 1, 7, 8, 9, 17] {
                        let text = format!(
                            "{}{piece}{}{other}{}",
                            "k".repeat(before),
                            "v ".repeat(after),
                            "x".repeat(before % 9)
                        );
                        assert_eq!(prescan(&text), slow(&text), "{text:?}");
                    }
                }
            }
        }
    }
}
