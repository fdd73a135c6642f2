use std::borrow::Cow;

use super::{inert, inert_line};

/// Asserts `text` is shown as `shown`, and that nothing a terminal acts on is left.
fn check(text: &str, shown: &str) {
    let out = inert(text);
    assert_eq!(out, shown, "inert({text:?})");
    assert_clean(&out);
}

/// No ESC, no C0 but `\t`/`\n`, no bare `\r`, no DEL or C1, no bidi control.
fn assert_clean(out: &str) {
    for (i, c) in out.char_indices() {
        let bad = match c {
            '\t' | '\n' => false,
            '\r' => !out[i + 1..].starts_with('\n'),
            c if c.is_control() => true,
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200B}' | '\u{FEFF}' => true,
            _ => false,
        };
        assert!(!bad, "{c:?} left in {out:?}");
    }
}

#[test]
fn clean_text_is_borrowed() {
    for text in [
        "",
        "plain ascii, with tabs\tand\nnewlines\n",
        "windows lines\r\nstay\r\n",
        "日本語のテキスト、中文，한국어",
        "emoji ✅ 👨‍👩‍👧 🏳️‍🌈 👍🏽",
        "Persian with ZWNJ: می‌خواهم",
        "Scotland 🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F} flag",
        "accents é è ñ, math ∀x ∈ ℝ, box ─│┌",
    ] {
        assert!(
            matches!(inert(text), Cow::Borrowed(_)),
            "{text:?} was copied"
        );
    }
}

#[test]
fn csi_sequences_are_shown_not_run() {
    check("\x1b[2J\x1b[Hclean", "\\x1b[2J\\x1b[Hclean");
    check("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m");
    // Hidden text (SGR 8, conceal) and cursor moves.
    check("a\x1b[8msecret\x1b[28m", "a\\x1b[8msecret\\x1b[28m");
    check("x\x1b[1A\x1b[2K", "x\\x1b[1A\\x1b[2K");
}

#[test]
fn osc_sequences_are_shown_not_run() {
    // Clipboard write (OSC 52), hyperlink (OSC 8), window title (OSC 0 / 2), BEL or ST.
    check("\x1b]52;c;cm0gLXJmIH4=\x07", "\\x1b]52;c;cm0gLXJmIH4=\\x07");
    check(
        "\x1b]8;;https://evil.example\x1b\\docs\x1b]8;;\x1b\\",
        "\\x1b]8;;https://evil.example\\x1b\\docs\\x1b]8;;\\x1b\\",
    );
    check("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07");
    check("\x1b]2;pwned\x1b\\", "\\x1b]2;pwned\\x1b\\");
}

#[test]
fn dcs_apc_pm_sos_are_shown_not_run() {
    check("\x1bP+q544e\x1b\\", "\\x1bP+q544e\\x1b\\");
    check("\x1b_apc\x1b\\", "\\x1b_apc\\x1b\\");
    check("\x1b^pm\x1b\\", "\\x1b^pm\\x1b\\");
    check("\x1bXsos\x1b\\", "\\x1bXsos\\x1b\\");
    // Two-character escapes: reset, charset switch.
    check("\x1bc\x1b(0", "\\x1bc\\x1b(0");
}

#[test]
fn eight_bit_c1_controls_are_shown() {
    // CSI, OSC, DCS, ST, NEL as single code points.
    check("\u{9b}2J", "\\u{9b}2J");
    check("\u{9d}52;c;eA==\u{9c}", "\\u{9d}52;c;eA==\\u{9c}");
    check("\u{90}x\u{85}y", "\\u{90}x\\u{85}y");
    check("\u{80}\u{9f}", "\\u{80}\\u{9f}");
}

#[test]
fn other_c0_controls_and_del_are_shown() {
    check("bell\x07", "bell\\x07");
    check("ab\x08\x08XY", "ab\\x08\\x08XY");
    check("nul\0", "nul\\x00");
    check("\x0b\x0c\x0e\x0f\x7f", "\\x0b\\x0c\\x0e\\x0f\\x7f");
    check("\x1c\x1d\x1e\x1f", "\\x1c\\x1d\\x1e\\x1f");
}

#[test]
fn a_bare_carriage_return_cannot_overwrite_a_line() {
    check(
        "3 tests FAILED\r3 tests passed\n",
        "3 tests FAILED\\r3 tests passed\n",
    );
    check("end\r", "end\\r");
    check("\r\r\n", "\\r\r\n");
    // A line ending in CRLF is fine: nothing is overwritten.
    check("a\r\nb", "a\r\nb");
}

#[test]
fn bidi_controls_are_shown() {
    // Trojan Source: an override makes `exe.txt` read as `txt.exe`.
    check("invoice\u{202E}txt.exe", "invoice\\u{202e}txt.exe");
    for c in [
        '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{2066}', '\u{2067}',
    ] {
        assert_eq!(inert(&c.to_string()), format!("\\u{{{:x}}}", u32::from(c)));
    }
    check("a\u{2068}b\u{2069}", "a\\u{2068}b\\u{2069}");
    check("\u{200E}\u{200F}\u{061C}", "\\u{200e}\\u{200f}\\u{61c}");
}

#[test]
fn invisible_characters_are_shown() {
    check("pass\u{200B}word", "pass\\u{200b}word");
    check("\u{FEFF}bom", "\\u{feff}bom");
    check("soft\u{AD}hyphen", "soft\\u{ad}hyphen");
    check("word\u{2060}joiner\u{2063}", "word\\u{2060}joiner\\u{2063}");
    check("line\u{2028}para\u{2029}", "line\\u{2028}para\\u{2029}");
    check("blank\u{3164}\u{115F}", "blank\\u{3164}\\u{115f}");
    // ASCII smuggled in tag characters (invisible on every terminal).
    check(
        "hi\u{E0069}\u{E0067}\u{E006E}",
        "hi\\u{e0069}\\u{e0067}\\u{e006e}",
    );
}

#[test]
fn only_well_formed_flags_keep_their_tags() {
    let scotland = "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}";
    check(scotland, scotland);
    // A sentence hidden behind a flag is not a flag.
    let smuggled: String = "🏴"
        .chars()
        .chain(
            "ignoreallrules"
                .chars()
                .map(|c| char::from_u32(0xE0000 + u32::from(c)).unwrap_or(' ')),
        )
        .chain(['\u{E007F}'])
        .collect();
    let out = inert(&smuggled);
    assert!(out.starts_with("🏴\\u{e0069}"), "{out}");
    assert!(out.ends_with("\\u{e007f}"), "{out}");
    // Unterminated.
    check("🏴\u{E0067}\u{E0062}", "🏴\\u{e0067}\\u{e0062}");
}

#[test]
fn text_around_escapes_is_kept_whole() {
    check("日本\x1b[2J語 ✅", "日本\\x1b[2J語 ✅");
    check("\u{9b}日本", "\\u{9b}日本");
}

#[test]
fn a_line_cannot_forge_lines() {
    assert_eq!(
        inert_line("build\n[bash] all tests passed"),
        "build\\n[bash] all tests passed"
    );
    assert_eq!(inert_line("a\r\nb\tc"), "a\\r\\nb\tc");
    assert_eq!(inert_line("\x1b]0;t\x07"), "\\x1b]0;t\\x07");
    assert!(matches!(inert_line("plain line"), Cow::Borrowed(_)));
}

#[test]
fn inert_output_is_inert_again() {
    let once = inert("\x1b[2J\r\u{202E}\u{9b}x\n");
    assert!(matches!(inert(&once), Cow::Borrowed(_)));
    let line = inert_line(&once);
    assert_eq!(inert_line(&line), line);
}

#[test]
fn every_code_point_comes_out_clean() {
    // Each character alone and between letters: no code point slips through.
    for u in 0..=0x10FFFF_u32 {
        let Some(c) = char::from_u32(u) else { continue };
        let text = format!("a{c}b");
        assert_clean(&inert(&text));
        let line = inert_line(&text);
        assert!(!line.contains(['\n', '\r']), "{c:?}");
        assert_clean(&line);
    }
}
