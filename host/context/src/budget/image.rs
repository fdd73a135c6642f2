//! What an attached file costs in the context window.
//!
//! Providers bill an image by its pixels, not its bytes, so the estimate comes from
//! the width and height in the image's header (the `imagesize` crate reads them
//! without decoding). Two published formulas, and the larger is taken — compaction
//! must trigger before a request is refused, so the estimate errs high:
//!
//! - Anthropic: the image is scaled to fit a 1568-pixel long edge and about
//!   1.15 megapixels, then costs `width × height / 750` tokens.
//! - OpenAI (high detail): scaled to fit 2048 × 2048, then its short side to 768;
//!   `85 + 170` per 512-pixel tile.
//!
//! A file whose header cannot be read as an image (a PDF) is not estimated: its
//! page count is not known from its header.

/// Anthropic's long-edge limit before it scales an image down.
const ANTHROPIC_EDGE: f64 = 1568.0;
/// Anthropic's area limit (pixels) before it scales an image down.
const ANTHROPIC_AREA: f64 = 1_150_000.0;

/// Tokens an image of `width` × `height` pixels is estimated to cost.
pub fn image_tokens(width: u64, height: u64) -> u64 {
    if width == 0 || height == 0 {
        return 0;
    }
    anthropic(width as f64, height as f64).max(openai(width as f64, height as f64))
}

/// Tokens of the image whose bytes are `bytes`, if they are an image.
pub fn tokens_of(bytes: &[u8]) -> Option<u64> {
    let size = imagesize::blob_size(bytes).ok()?;
    Some(image_tokens(size.width as u64, size.height as u64))
}

fn anthropic(w: f64, h: f64) -> u64 {
    let edge = (ANTHROPIC_EDGE / w.max(h)).min(1.0);
    let area = (ANTHROPIC_AREA / (w * h)).sqrt().min(1.0);
    let scale = edge.min(area);
    ((w * scale) * (h * scale) / 750.0).ceil() as u64
}

fn openai(w: f64, h: f64) -> u64 {
    let fit = (2048.0 / w.max(h)).min(1.0);
    let (w, h) = (w * fit, h * fit);
    let short = (768.0 / w.min(h)).min(1.0);
    let (w, h) = (w * short, h * short);
    let tiles = (w / 512.0).ceil() * (h / 512.0).ceil();
    85 + 170 * tiles as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_larger_of_the_published_formulas() {
        // 1×1: one OpenAI tile (255) beats Anthropic's 1 token.
        assert_eq!(image_tokens(1, 1), 255);
        // 1000×1000: Anthropic 1334 (1000²/750), OpenAI 4 tiles at 768² = 765.
        assert_eq!(image_tokens(1000, 1000), 1334);
        // 4000×3000: Anthropic scales to the area limit: 1.15 MP / 750 ≈ 1534.
        assert_eq!(image_tokens(4000, 3000), 1534);
        // A tall strip: Anthropic scales it to 392 × 1568 (820); OpenAI fits it in
        // 512 × 2048, four tiles (765).
        assert_eq!(image_tokens(1000, 4000), 820);
        assert_eq!(image_tokens(0, 10), 0);
    }
}
