//! Unit tests: the model mapping, counting edge cases, and the estimate on small inputs.

use super::*;

#[test]
fn models_map_to_their_encoding() {
    let cases = [
        ("openai", "gpt-4o", Encoding::O200k),
        ("openai", "gpt-4o-mini", Encoding::O200k),
        ("openai", "gpt-4o-2024-08-06", Encoding::O200k),
        ("openai", "chatgpt-4o-latest", Encoding::O200k),
        ("openai", "gpt-4.1", Encoding::O200k),
        ("openai", "gpt-4.1-nano", Encoding::O200k),
        ("openai", "gpt-4.5-preview", Encoding::O200k),
        ("openai", "gpt-5", Encoding::O200k),
        ("openai", "gpt-5-mini", Encoding::O200k),
        ("openai", "gpt-5.1-codex", Encoding::O200k),
        ("openai", "o1", Encoding::O200k),
        ("openai", "o1-preview", Encoding::O200k),
        ("openai", "o3-mini", Encoding::O200k),
        ("openai", "o4-mini", Encoding::O200k),
        ("openai", "codex-mini-latest", Encoding::O200k),
        (
            "openai",
            "ft:gpt-4o-mini-2024-07-18:acme::abc123",
            Encoding::O200k,
        ),
        ("openrouter", "openai/gpt-4o", Encoding::O200k),
        ("openrouter", "openai/GPT-5", Encoding::O200k),
        ("ollama", "gpt-oss:20b", Encoding::O200k),
        ("openai", "gpt-4", Encoding::Cl100k),
        ("openai", "gpt-4-turbo", Encoding::Cl100k),
        ("openai", "gpt-4-0613", Encoding::Cl100k),
        ("openai", "gpt-4-32k", Encoding::Cl100k),
        ("openai", "gpt-3.5-turbo", Encoding::Cl100k),
        ("azure", "gpt-35-turbo", Encoding::Cl100k),
        ("openai", "text-embedding-3-small", Encoding::Cl100k),
        ("openai", "text-embedding-ada-002", Encoding::Cl100k),
        ("anthropic", "claude-sonnet-4-5", Encoding::Estimate),
        ("anthropic", "claude-3-5-haiku-latest", Encoding::Estimate),
        ("google", "gemini-2.5-pro", Encoding::Estimate),
        ("openrouter", "qwen/qwen3-coder", Encoding::Estimate),
        ("ollama", "llama3.1:8b", Encoding::Estimate),
        ("deepseek", "deepseek-chat", Encoding::Estimate),
        ("openrouter", "openai/o3x", Encoding::Estimate),
        ("openai", "gpt-4x", Encoding::Estimate),
        ("local", "olmo-2", Encoding::Estimate),
        ("local", "", Encoding::Estimate),
        ("openai", "gpt-6", Encoding::Estimate),
    ];
    for (provider, model, want) in cases {
        assert_eq!(
            Encoding::for_model(provider, model),
            want,
            "{provider}/{model}"
        );
        let counter = TokenCounter::for_model(provider, model);
        assert_eq!(counter.encoding(), want, "{provider}/{model}");
    }
}

#[test]
fn counts_known_strings_exactly() {
    let o200k = TokenCounter::new(Encoding::O200k);
    let cl100k = TokenCounter::new(Encoding::Cl100k);
    assert_eq!(o200k.count(""), 0);
    assert_eq!(cl100k.count(""), 0);
    assert_eq!(o200k.count("Hello, world!"), 4);
    assert_eq!(cl100k.count("Hello, world!"), 4);
    assert_eq!(o200k.count("hello world"), 2);
}

#[test]
fn special_token_text_is_counted_as_text() {
    for encoding in [Encoding::O200k, Encoding::Cl100k] {
        let counter = TokenCounter::new(encoding);
        let n = counter.count("before <|endoftext|> <|fim_prefix|><|im_start|> after");
        assert!(n > 5, "{encoding:?}: {n}");
        assert_eq!(
            counter.count("<|endoftext|>"),
            counter.count("<|endoftext|>x") - 1,
            "{encoding:?}"
        );
    }
}

/// A whitespace run of a million bytes makes tiktoken's pattern fail; cutting the text
/// into pieces keeps it working.
#[test]
fn pathological_input_does_not_panic() {
    let o200k = TokenCounter::new(Encoding::O200k);
    let spaces = " ".repeat(1_200_000) + "x";
    let n = o200k.count(&spaces);
    // 60,000 spaces need no cut; each cut costs at most a token or two.
    let part = o200k.count(&" ".repeat(60_000));
    assert!(n.abs_diff(20 * part) <= 40, "{n} vs 20 × {part}");
    let tabs = "\t".repeat(1_200_000);
    assert!(o200k.count(&tabs) > 0);
    let blob = "Zm9vYmFy".repeat(40_000);
    assert!(o200k.count(&blob) > 10_000);
    let cjk = "上下文".repeat(30_000);
    assert!(o200k.count(&cjk) > 30_000);
}

/// Cutting long text at spaces between words changes nothing.
#[test]
fn long_text_is_counted_exactly_despite_the_cuts() {
    let paragraph = "Prune walks back from the newest message, skips the last two user \
                     turns and marks older tool outputs compacted once 40k tokens of them \
                     are counted; 上下文管理 keeps the static block first.\n";
    let text = paragraph.repeat(PIECE / paragraph.len() * 3);
    assert!(text.len() > 2 * PIECE);
    let bpe = O200K_BPE.as_ref().expect("o200k builds");
    let whole = bpe.encode_ordinary(&text).len() as u64;
    assert_eq!(TokenCounter::new(Encoding::O200k).count(&text), whole);
}

#[test]
fn cuts_land_on_char_boundaries() {
    let text = "é".repeat(PIECE);
    let at = cut(&text);
    assert!(text.is_char_boundary(at) && at > 0 && at <= PIECE);
    let text = "word ".repeat(PIECE);
    let at = cut(&text);
    assert_eq!(&text[at..at + 1], " ");
}

#[test]
fn estimate_is_sane_on_small_inputs() {
    assert_eq!(estimate(""), 0);
    assert_eq!(estimate("a"), 1);
    assert_eq!(estimate(" "), 1);
    assert_eq!(estimate("\n"), 1);
    assert_eq!(estimate("hello world"), 2);
    assert_eq!(
        TokenCounter::new(Encoding::Estimate).count("hello world"),
        2
    );
    // Chinese: about two thirds of a token per ideograph, not a quarter.
    let zh = "在上一篇文章中我们了解了整体架构现在让我们深入到最核心的部分";
    let n = estimate(zh);
    let chars = zh.chars().count() as u64;
    assert!(n > chars / 2 && n < chars, "{n} for {chars} ideographs");
    // Every kind of character is counted, and nothing panics.
    for text in [
        "😀🎉",
        "Привет, мир",
        "こんにちは",
        "안녕하세요",
        "─────",
        "\u{feff}\u{200b}",
        "ａｂｃ",
    ] {
        assert!(estimate(text) > 0, "{text}");
    }
}

#[test]
fn estimate_grows_with_the_text() {
    let line = "fn main() { println!(\"{}\", 42); } // 中文注释\n";
    let one = estimate(line);
    let ten = estimate(&line.repeat(10));
    assert!(ten >= 9 * one && ten <= 11 * one, "{one} {ten}");
}
