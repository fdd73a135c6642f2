//! The estimate's constants, fitted against o200k_base.
//!
//! Fitted by weighted least squares: the relative error of each 3 KB chunk, each kind of
//! corpus weighted alike, with a light ridge pulling each weight towards its prior (one
//! token per pre-tokenizer piece). The corpora are *not* the ones the tests check: the Rust
//! book, the Rustonomicon and Rust by Example (English, plus its Chinese, Japanese, Korean
//! and Spanish translations), npm's documentation and crate READMEs (English), 300 Rust
//! files from crates, 120 modules of Python's standard library and 150 JavaScript files
//! from npm; then, with everything else fixed, the two weights of two-byte characters on
//! gettext catalogues in Russian, Greek and Arabic. [`BIGRAM`] was measured on the first
//! set. The tests check the estimate on this repository's documents and sources and on the
//! Chinese seed documents, none of which was fitted.

/// Words after a space, by length 1..=12, then words longer than 12, then each letter
/// beyond 12.
pub(crate) const WORD_AFTER_SPACE: [f64; 14] = [
    1.0006, 0.9115, 0.8188, 0.8660, 0.9121, 0.8511, 0.8483, 0.8993, 0.9730, 1.0079, 1.0095, 1.0193,
    1.0227, 0.0897,
];

/// Other words (starting a line, or after punctuation, a digit or a camelCase split), the
/// same way.
pub(crate) const WORD_OTHER: [f64; 14] = [
    0.9691, 0.9508, 1.0594, 0.8811, 1.0034, 0.9381, 0.9043, 1.0082, 1.0035, 1.0285, 1.0323, 0.9946,
    1.0396, 0.0982,
];

/// A punctuation mark absorbed by the word after it, for marks that merge easily (`.`, `_`,
/// `\`, `(`), sometimes (`-`, `/`, `<`, `[`, `'`) or rarely (the rest).
pub(crate) const MARK_WORD: [f64; 3] = [0.0576, 0.3623, 0.9146];

/// All-capital words of two letters or more, and each of their letters.
pub(crate) const CAPS: [f64; 2] = [-0.1047, 0.0866];

/// A group of up to three digits.
pub(crate) const DIGIT_GROUP: f64 = 1.0827;

/// Runs of ASCII punctuation of 1, 2, 3 and 4 or more marks, then each mark beyond 4.
pub(crate) const PUNCT: [f64; 5] = [0.9950, 1.1112, 1.2519, 1.4045, 0.0955];

/// Line breaks absorbed by the punctuation before them, runs of whitespace a word does not
/// absorb, tabs, runs of line breaks, and line breaks after spaces within such a run.
pub(crate) const WHITESPACE: [f64; 5] = [0.0105, 0.9923, 0.1030, 0.9917, 0.9998];

/// CJK ideographs, runs of them, CJK punctuation and full-width forms, kana, hangul, other
/// two-byte characters, those following another (the rest of a Cyrillic or Greek word),
/// general punctuation, other three-byte characters, four-byte characters (emoji; no
/// corpus had enough of them, so this one is its prior), non-ASCII marks absorbed by an
/// ASCII word, and box drawing or general punctuation repeating the character before.
pub(crate) const NON_ASCII: [f64; 12] = [
    0.6726, 0.4160, 0.7903, 0.6483, 0.6907, 1.4616, 0.1296, 0.9981, 0.9839, 2.0004, 0.9859, 0.3314,
];

/// One fifteenth of a likely token break inside a word (see [`BIGRAM`]).
pub(crate) const BREAK: f64 = 0.0843;

/// How often o200k cuts a word between two letters, in fifteenths (one hex digit), by
/// letter pair: the row is the first letter, the column the second, case ignored. `xk` or
/// `qf` is nearly always cut, `qu`, `th` or `in` nearly never.
pub(crate) const BIGRAM: [[u8; 26]; 26] = [
    *b"60008003000000901000100000", // a
    *b"178908141080ab1cd14e1cac0a", // b
    *b"131601502e002803513013e414", // c
    *b"1481099c25126815d11525250c", // d
    *b"11101115352000611000510004", // e
    *b"1552100c0c811005b1201b510f", // f
    *b"43490c2028f2401df11114cb59", // g
    *b"1ed90e671fcb5819d1303f392b", // h
    *b"2000100120100000000060b0b0", // i
    *b"4b7e07efbf2e8b0c1f0a1ffbed", // j
    *b"26c70a1b4b98c1bbde4a7a7f7e", // k
    *b"11a000491c406105841011120d", // l
    *b"10b50d462f521911de120e350d", // m
    *b"1c10010836023113e60011280b", // n
    *b"20105106110000107000000014", // o
    *b"1b3306a1287019114020048a1e", // p
    *b"be735ffbddf0ed5e12ab0bfffe", // q
    *b"271108061f0311075010113309", // r
    *b"163404312f0254116500142b12", // s
    *b"1a2206d01fa25b02f01119221b", // t
    *b"1000010319100040d000133080", // u
    *b"0ea70a0f1e184a1bfc768c6e0e", // v
    *b"29981e701edbd10be11bff011b", // w
    *b"113535fa2ffe2cd1ec80fdf008", // x
    *b"827b1f7a2fb24000fc11ef2e21", // y
    *b"1efd0efb3fcee22f2ff3ad2300", // z
];
