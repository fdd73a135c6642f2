//! Token counting for Ward's context management (SPEC §5): the prune budget, the overflow
//! check and the compaction headroom all count tokens with this crate.
//!
//! This crate owns two things:
//!
//! - **Real tokenizers** where a model family has a public one: OpenAI's o200k_base and
//!   cl100k_base, through `tiktoken-rs`. Each is built once per process, on first use (it
//!   takes tens of milliseconds), and counts with the ordinary encoding, so text that looks
//!   like a special token (`<|endoftext|>`) is counted as text rather than refused.
//! - **A CJK-aware estimate** ([`estimate()`]) for every other family (Claude, Gemini, Qwen,
//!   Llama, DeepSeek, unknown models). One pass over the text counts the pieces a BPE
//!   pre-tokenizer would cut it into (words by length, digit groups, punctuation and
//!   whitespace runs, CJK ideographs, kana, hangul, other scripts) and weighs them with
//!   constants fitted against o200k_base. It stays within a few percent of o200k on English,
//!   source code and Chinese, where the usual four characters per token undercounts Chinese
//!   two to four times; the crate's tests measure this on the repository's own documents.
//!
//! ```
//! use ward_tokens::{Encoding, TokenCounter};
//!
//! let counter = TokenCounter::for_model("openai", "gpt-4o-mini");
//! assert_eq!(counter.encoding(), Encoding::O200k);
//! assert_eq!(counter.count("Hello, world!"), 4);
//!
//! let claude = TokenCounter::for_model("anthropic", "claude-sonnet-4-5");
//! assert_eq!(claude.encoding(), Encoding::Estimate);
//! assert!(claude.count("上下文管理：修剪、溢出与压缩") > 8);
//! ```

mod estimate;
mod weights;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::LazyLock;

use tiktoken_rs::CoreBPE;

pub use estimate::estimate;

/// How tokens are counted for a model family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// OpenAI's o200k_base: GPT-4o, GPT-4.1, GPT-4.5, GPT-5, o1, o3, o4, gpt-oss.
    O200k,
    /// OpenAI's cl100k_base: GPT-4 and GPT-3.5 (not 4o), the text-embedding models.
    Cl100k,
    /// The CJK-aware [`estimate()`], for families without a public tokenizer here.
    Estimate,
}

/// Model id prefixes counted with o200k_base. Checked before [`CL100K`], so `gpt-4o` and
/// `gpt-4.1` are not taken for `gpt-4`.
const O200K: &[&str] = &[
    "gpt-4o",
    "gpt-4.1",
    "gpt-4.5",
    "gpt-5",
    "chatgpt-4o",
    "gpt-oss",
    "codex",
    "o1",
    "o3",
    "o4",
];

/// Model id prefixes counted with cl100k_base (`gpt-35` is Azure's spelling).
const CL100K: &[&str] = &[
    "gpt-4",
    "gpt-3.5",
    "gpt-35",
    "text-embedding",
    "davinci-002",
    "babbage-002",
];

impl Encoding {
    /// The encoding for a model: o200k for the gpt-4o, gpt-4.1, gpt-4.5, gpt-5, o1, o3,
    /// o4 and gpt-oss families, cl100k for gpt-4 and gpt-3.5 (not 4o) and text-embedding;
    /// [`Encoding::Estimate`] otherwise (claude, gemini, qwen, llama, deepseek, unknown).
    ///
    /// The model id decides, matched by family prefix, case-insensitively, after dropping
    /// any `provider/` prefix (`openai/gpt-4o` on OpenRouter) and a fine-tune's `ft:`
    /// (`ft:gpt-4o-mini:org::id`). A prefix matches only whole: `o3` matches `o3` and
    /// `o3-mini`, not `o3x`. The provider does not change the answer: a model keeps its
    /// tokenizer whoever serves it (gpt-oss on Ollama is still o200k).
    pub fn for_model(provider: &str, model: &str) -> Encoding {
        let _ = provider;
        let id = model.rsplit('/').next().unwrap_or(model);
        let id = id.strip_prefix("ft:").unwrap_or(id).to_ascii_lowercase();
        let family = |prefixes: &[&str]| prefixes.iter().any(|p| is_family(&id, p));
        if family(O200K) {
            Encoding::O200k
        } else if family(CL100K) {
            Encoding::Cl100k
        } else {
            Encoding::Estimate
        }
    }
}

/// Whether `id` is `prefix` or continues it after a separator (`-`, `.`, `:`, `@`, `_`).
fn is_family(id: &str, prefix: &str) -> bool {
    id.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '.', ':', '@', '_']))
}

/// Counts tokens the way a model family does. Cheap to copy: the tokenizers themselves
/// are built once per process and shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenCounter {
    encoding: Encoding,
}

impl TokenCounter {
    /// A counter for `encoding`. Nothing is built until the first [`TokenCounter::count`].
    pub fn new(encoding: Encoding) -> Self {
        Self { encoding }
    }

    /// A counter for a model, as [`Encoding::for_model`] chooses.
    pub fn for_model(provider: &str, model: &str) -> Self {
        Self::new(Encoding::for_model(provider, model))
    }

    /// The encoding this counter uses.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The number of tokens in `text`.
    ///
    /// With a real tokenizer this is the exact count of its ordinary encoding (special
    /// tokens are counted as text), except that text beyond 64 KiB is counted in pieces
    /// cut at spaces between words (which changes nothing), or, if a 4 KiB stretch holds
    /// no such space, anywhere (which may change the count by a token per cut); this
    /// keeps the tokenizer's pattern matching bounded on pathological input. Should the
    /// tokenizer fail to build, or fail on a piece, that part is estimated instead.
    pub fn count(&self, text: &str) -> u64 {
        match self.encoding {
            Encoding::O200k => bpe_count(&O200K_BPE, text),
            Encoding::Cl100k => bpe_count(&CL100K_BPE, text),
            Encoding::Estimate => estimate(text),
        }
    }
}

static O200K_BPE: LazyLock<Option<CoreBPE>> = LazyLock::new(|| tiktoken_rs::o200k_base().ok());
static CL100K_BPE: LazyLock<Option<CoreBPE>> = LazyLock::new(|| tiktoken_rs::cl100k_base().ok());

/// Pieces longer than this are cut before counting: tiktoken's pattern fails (and
/// `tiktoken-rs` panics) on a whitespace run of about a million bytes.
const PIECE: usize = 64 * 1024;

/// How far back from [`PIECE`] to look for a clean cut.
const CUT_SEARCH: usize = 4 * 1024;

fn bpe_count(bpe: &LazyLock<Option<CoreBPE>>, text: &str) -> u64 {
    let Some(bpe) = bpe.as_ref() else {
        return estimate(text);
    };
    let mut rest = text;
    let mut total = 0;
    while !rest.is_empty() {
        let (piece, tail) = rest.split_at(cut(rest));
        total += catch_unwind(AssertUnwindSafe(|| bpe.encode_ordinary(piece).len() as u64))
            .unwrap_or_else(|_| estimate(piece));
        rest = tail;
    }
    total
}

/// Where to end the first piece of `text`: all of it if it is short enough, else before
/// a single space between two non-blank characters (a boundary the tokenizer's own
/// pattern would cut at too), else at the last character boundary that fits.
fn cut(text: &str) -> usize {
    if text.len() <= PIECE {
        return text.len();
    }
    let b = text.as_bytes();
    let clean = (PIECE - CUT_SEARCH..PIECE).rev().find(|&p| {
        b[p] == b' ' && !b[p - 1].is_ascii_whitespace() && !b[p + 1].is_ascii_whitespace()
    });
    let boundary = || (1..=PIECE).rev().find(|&p| text.is_char_boundary(p));
    clean.or_else(boundary).unwrap_or(text.len())
}

#[cfg(test)]
mod tests;
