//! OpenCode's `opencode.json` / `opencode.jsonc` read as a configuration layer.
//!
//! The file is parsed with `jsonc-parser` (comments and trailing commas, as
//! OpenCode accepts; nothing looser), which keeps the byte range of every key,
//! so every problem is located `opencode.json:LINE:COL`. What has a Ward meaning
//! is converted ([`convert`]) into the same table a `ward.toml` layer produces, so
//! layering and validation are the ones every layer goes through; each converted
//! key remembers where it was written, so [`Origins`](crate::Origins) and schema
//! errors point into the JSON file. Everything else is one located [`Warning`]
//! saying what Ward does instead — never a refusal: OpenCode adds keys often.

mod convert;
#[cfg(test)]
mod tests;

use std::path::Path;

use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions, parse_to_ast};

use crate::error::{ConfigError, Located};
use crate::schema::Config;
use crate::substitute::{EnvLookup, Tokens};
use crate::warning::Warning;

/// The names OpenCode reads its configuration from, lowest precedence first.
pub const FILE_NAMES: &[&str] = &["opencode.json", "opencode.jsonc"];

/// Whether `file` is an OpenCode configuration file (by its name).
pub fn is_opencode_file(file: &Path) -> bool {
    file.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| FILE_NAMES.contains(&name))
}

/// One converted OpenCode file.
#[derive(Debug, Default)]
pub(crate) struct Layer {
    /// The settings that have a Ward meaning, in `ward.toml`'s shape.
    pub(crate) table: toml::Table,
    /// Where each key of `table` (by its path) was written in the file.
    pub(crate) origins: Vec<(Vec<String>, Located)>,
    /// The keys Ward does not act on, each located, with what Ward does instead.
    pub(crate) warnings: Vec<Warning>,
    /// The paths in `table` of the values spelt by `{env:…}` or `{file:…}`
    /// substitution (an array element by its index), which are shown hidden.
    pub(crate) substituted: Vec<Vec<String>>,
}

/// Parses, converts and validates the OpenCode file `file` whose text is `text`;
/// `{file:…}` paths are relative to `base_dir`.
pub(crate) fn layer(
    file: &Path,
    text: &str,
    base_dir: &Path,
    env: EnvLookup<'_>,
    tokens: Tokens,
) -> Result<Layer, ConfigError> {
    let parse_options = ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let collect = CollectOptions {
        comments: CommentCollectionStrategy::Off,
        tokens: false,
    };
    let parsed =
        parse_to_ast(text, &collect, &parse_options).map_err(|err| ConfigError::Syntax {
            at: Located::from_offset(file, text, err.range().start),
            message: format!("invalid JSON: {}", err.kind()),
        })?;
    let Some(root) = parsed.value else {
        // An empty (or comment-only) file says nothing.
        return Ok(Layer::default());
    };
    let mut converter = convert::Converter::new(file, text, base_dir, env, tokens);
    converter.document(&root)?;
    let layer = converter.finish();
    validate(file, &layer)?;
    Ok(layer)
}

/// Checks the converted table against Ward's schema, reporting the first
/// problem at the JSON key it was converted from.
fn validate(file: &Path, layer: &Layer) -> Result<(), ConfigError> {
    let value = toml::Value::Table(layer.table.clone());
    let Err(err) = serde_path_to_error::deserialize::<_, Config>(value) else {
        return Ok(());
    };
    let path: Vec<String> = err
        .path()
        .iter()
        .filter_map(|segment| match segment {
            serde_path_to_error::Segment::Map { key } => Some(key.clone()),
            serde_path_to_error::Segment::Seq { index } => Some(index.to_string()),
            _ => None,
        })
        .collect();
    // The deepest key that was written in the file (an array element has none).
    let at = (0..=path.len())
        .rev()
        .find_map(|len| {
            layer
                .origins
                .iter()
                .find(|(key, _)| key.as_slice() == &path[..len])
                .map(|(_, at)| at.clone())
        })
        .unwrap_or_else(|| Located {
            file: file.to_path_buf(),
            line: 1,
            column: 1,
        });
    Err(ConfigError::Invalid {
        at,
        path: path.join("."),
        message: err.inner().message().trim().to_owned(),
    })
}
