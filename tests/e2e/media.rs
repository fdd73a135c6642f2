//! Files and images reaching the model, and reasoning variants, end to end with the
//! scripted LLM server: what `ward run` sends is asserted on the recorded requests of
//! each wire protocol.

mod budget;
mod files;
mod reasoning;

use ward_tests::Project;
use ward_tests::llm::ScriptedLlm;

/// A 1×1 PNG: real magic numbers, so the bytes say what it is.
pub const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];

/// [`PNG`] as its `data:` URL.
pub fn png_data_url() -> String {
    use base64::Engine as _;
    format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(PNG)
    )
}

/// `ward.toml` for `scripted/test-model` on `llm` spoken as `kind`, with `model`
/// lines added to the model's table (`attachment = true`, `reasoning = true`, …) and
/// `extra` appended.
pub fn configure(p: &Project, llm: &ScriptedLlm, kind: &str, model: &str, extra: &str) {
    p.write(
        "ward.toml",
        &format!(
            "model = \"scripted/test-model\"\n[provider.scripted]\nkind = \"{kind}\"\n\
             base_url = \"{}/v1\"\napi_key = \"test-key\"\n\
             [provider.scripted.models.test-model]\noutput = 1024\n{model}\n{extra}",
            llm.base_url
        ),
    );
}

/// Writes `bytes` to `rel` in the project.
pub fn write_bytes(p: &Project, rel: &str, bytes: &[u8]) {
    std::fs::write(p.path(rel), bytes).unwrap();
}

/// `ward run ARGS` in `p`.
pub async fn ward_run(p: &Project, args: &[&str]) -> ward_tests::Run {
    let mut full = vec!["run"];
    full.extend_from_slice(args);
    p.run_async(&full, "").await
}
