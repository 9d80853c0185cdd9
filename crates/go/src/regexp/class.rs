//! Character classes: Go's Perl (`\d \s \w`) and POSIX (`[:alpha:]`) groups, all
//! ASCII-only, the Unicode table names Go 1.22–1.24 knows (`unicode.Categories` and
//! `unicode.Scripts` of Unicode 15.0.0, plus `Any`), and their rendering in the `regex`
//! crate's bracket syntax.

/// One piece of a bracket expression, or a whole class escape.
#[derive(Clone, Debug)]
pub(super) enum ClassItem {
    /// A rune range; runes from escapes may be surrogates, which match nothing.
    Range(u32, u32),
    /// A Perl or POSIX group: ASCII ranges, negated for `\D`, `[:^alpha:]`.
    Group(&'static [(u32, u32)], bool),
    /// A Unicode table by its Go name, negated for `\P`, `\p{^…}`.
    Unicode(&'static str, bool),
}

const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
const SPACE: &[(u32, u32)] = &[(0x9, 0xa), (0xc, 0xd), (0x20, 0x20)];
const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5a), (0x5f, 0x5f), (0x61, 0x7a)];

/// `perlGroup`: the group of `\d \D \s \S \w \W`.
pub(super) fn perl_group(escape: &str) -> Option<ClassItem> {
    let (table, negated) = match escape {
        r"\d" => (DIGIT, false),
        r"\D" => (DIGIT, true),
        r"\s" => (SPACE, false),
        r"\S" => (SPACE, true),
        r"\w" => (WORD, false),
        r"\W" => (WORD, true),
        _ => return None,
    };
    Some(ClassItem::Group(table, negated))
}

/// `posixGroup`: the group of `[:name:]` or `[:^name:]`.
pub(super) fn posix_group(name: &str) -> Option<ClassItem> {
    let inner = name.strip_prefix("[:")?.strip_suffix(":]")?;
    let (inner, negated) = match inner.strip_prefix('^') {
        Some(rest) => (rest, true),
        None => (inner, false),
    };
    let table: &'static [(u32, u32)] = match inner {
        "alnum" => &[(0x30, 0x39), (0x41, 0x5a), (0x61, 0x7a)],
        "alpha" => &[(0x41, 0x5a), (0x61, 0x7a)],
        "ascii" => &[(0x0, 0x7f)],
        "blank" => &[(0x9, 0x9), (0x20, 0x20)],
        "cntrl" => &[(0x0, 0x1f), (0x7f, 0x7f)],
        "digit" => DIGIT,
        "graph" => &[(0x21, 0x7e)],
        "lower" => &[(0x61, 0x7a)],
        "print" => &[(0x20, 0x7e)],
        "punct" => &[(0x21, 0x2f), (0x3a, 0x40), (0x5b, 0x60), (0x7b, 0x7e)],
        "space" => &[(0x9, 0xd), (0x20, 0x20)],
        "upper" => &[(0x41, 0x5a)],
        "word" => WORD,
        "xdigit" => &[(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)],
        _ => return None,
    };
    Some(ClassItem::Group(table, negated))
}

/// `unicode.Categories` keys of Go 1.22–1.24 (no `LC`, no `Cn`: those came in 1.25).
const CATEGORIES: &[&str] = &[
    "C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N",
    "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So",
    "Z", "Zl", "Zp", "Zs",
];

/// `unicode.Scripts` keys of Go 1.22–1.24 (Unicode 15.0.0).
#[rustfmt::skip]
const SCRIPTS: &[&str] = &[
    "Adlam", "Ahom", "Anatolian_Hieroglyphs", "Arabic", "Armenian", "Avestan", "Balinese",
    "Bamum", "Bassa_Vah", "Batak", "Bengali", "Bhaiksuki", "Bopomofo", "Brahmi", "Braille",
    "Buginese", "Buhid", "Canadian_Aboriginal", "Carian", "Caucasian_Albanian", "Chakma",
    "Cham", "Cherokee", "Chorasmian", "Common", "Coptic", "Cuneiform", "Cypriot",
    "Cypro_Minoan", "Cyrillic", "Deseret", "Devanagari", "Dives_Akuru", "Dogra", "Duployan",
    "Egyptian_Hieroglyphs", "Elbasan", "Elymaic", "Ethiopic", "Georgian", "Glagolitic",
    "Gothic", "Grantha", "Greek", "Gujarati", "Gunjala_Gondi", "Gurmukhi", "Han", "Hangul",
    "Hanifi_Rohingya", "Hanunoo", "Hatran", "Hebrew", "Hiragana", "Imperial_Aramaic",
    "Inherited", "Inscriptional_Pahlavi", "Inscriptional_Parthian", "Javanese", "Kaithi",
    "Kannada", "Katakana", "Kawi", "Kayah_Li", "Kharoshthi", "Khitan_Small_Script", "Khmer",
    "Khojki", "Khudawadi", "Lao", "Latin", "Lepcha", "Limbu", "Linear_A", "Linear_B",
    "Lisu", "Lycian", "Lydian", "Mahajani", "Makasar", "Malayalam", "Mandaic", "Manichaean",
    "Marchen", "Masaram_Gondi", "Medefaidrin", "Meetei_Mayek", "Mende_Kikakui",
    "Meroitic_Cursive", "Meroitic_Hieroglyphs", "Miao", "Modi", "Mongolian", "Mro",
    "Multani", "Myanmar", "Nabataean", "Nag_Mundari", "Nandinagari", "New_Tai_Lue", "Newa",
    "Nko", "Nushu", "Nyiakeng_Puachue_Hmong", "Ogham", "Ol_Chiki", "Old_Hungarian",
    "Old_Italic", "Old_North_Arabian", "Old_Permic", "Old_Persian", "Old_Sogdian",
    "Old_South_Arabian", "Old_Turkic", "Old_Uyghur", "Oriya", "Osage", "Osmanya",
    "Pahawh_Hmong", "Palmyrene", "Pau_Cin_Hau", "Phags_Pa", "Phoenician", "Psalter_Pahlavi",
    "Rejang", "Runic", "Samaritan", "Saurashtra", "Sharada", "Shavian", "Siddham",
    "SignWriting", "Sinhala", "Sogdian", "Sora_Sompeng", "Soyombo", "Sundanese",
    "Syloti_Nagri", "Syriac", "Tagalog", "Tagbanwa", "Tai_Le", "Tai_Tham", "Tai_Viet",
    "Takri", "Tamil", "Tangsa", "Tangut", "Telugu", "Thaana", "Thai", "Tibetan", "Tifinagh",
    "Tirhuta", "Toto", "Ugaritic", "Vai", "Vithkuqi", "Wancho", "Warang_Citi", "Yezidi",
    "Yi", "Zanabazar_Square",
];

/// `unicodeTable`: the name as Go spells it (case-sensitive), if Go knows it.
pub(super) fn unicode_table(name: &str) -> Option<&'static str> {
    if name == "Any" {
        return Some("Any");
    }
    CATEGORIES
        .iter()
        .chain(SCRIPTS)
        .find(|known| **known == name)
        .copied()
}

/// Every rune, as a range inside brackets.
const EVERYTHING: &str = r"\x{0}-\x{10FFFF}";

/// A bracket class matching nothing (the `regex` crate has no `[]`).
pub(super) const NOTHING: &str = r"[^\x{0}-\x{10FFFF}]";

/// `items` as one bracketed class of the `regex` crate.
pub(super) fn render(items: &[ClassItem], negated: bool) -> String {
    let body: String = items.iter().map(render_item).collect();
    match (body.is_empty(), negated) {
        (true, false) => NOTHING.to_owned(),
        (true, true) => format!("[{EVERYTHING}]"),
        (false, false) => format!("[{body}]"),
        (false, true) => format!("[^{body}]"),
    }
}

fn render_item(item: &ClassItem) -> String {
    match *item {
        ClassItem::Range(lo, hi) => {
            // Surrogates cannot occur in a Rust string: clip them off the range.
            let lo = if (0xd800..=0xdfff).contains(&lo) {
                0xe000
            } else {
                lo
            };
            let hi = if (0xd800..=0xdfff).contains(&hi) {
                0xd7ff
            } else {
                hi
            };
            match lo.cmp(&hi) {
                std::cmp::Ordering::Greater => String::new(),
                std::cmp::Ordering::Equal => rune(lo),
                std::cmp::Ordering::Less => format!("{}-{}", rune(lo), rune(hi)),
            }
        }
        ClassItem::Group(table, negated) => {
            let ranges: String = table
                .iter()
                .map(|&(lo, hi)| render_item(&ClassItem::Range(lo, hi)))
                .collect();
            if negated {
                format!("[^{ranges}]")
            } else {
                ranges
            }
        }
        ClassItem::Unicode(name, negated) => match (name, negated) {
            ("Any", false) | ("Cs", true) => EVERYTHING.to_owned(),
            ("Any", true) | ("Cs", false) => String::new(),
            // Go's C is Cc, Cf, Co and Cs; the crate's C also holds the unassigned Cn.
            ("C", false) => r"\p{Cc}\p{Cf}\p{Co}".to_owned(),
            ("C", true) => r"[^\p{Cc}\p{Cf}\p{Co}]".to_owned(),
            (name, false) => format!(r"\p{{{name}}}"),
            (name, true) => format!(r"\P{{{name}}}"),
        },
    }
}

/// One rune as the `regex` crate reads it literally, inside or outside brackets.
pub(super) fn rune(r: u32) -> String {
    match char::from_u32(r) {
        Some(c) if c.is_ascii_alphanumeric() => c.to_string(),
        Some(c) if "\\.+*?()|[]{}^$#&-~".contains(c) => format!("\\{c}"),
        Some(c) if c.is_ascii_graphic() => c.to_string(),
        _ => format!(r"\x{{{r:X}}}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_go_table_name_compiles_in_the_regex_crate() {
        for name in CATEGORIES.iter().chain(SCRIPTS).chain(&["Any"]) {
            for negated in [false, true] {
                let class = render(&[ClassItem::Unicode(name, negated)], false);
                regex::Regex::new(&class).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
        assert_eq!(SCRIPTS.len(), 163);
    }
}
