//! `[marketplace]`: where `ward plugin search/install/update` look for packages,
//! and the ed25519 keys whose signatures they trust.
//!
//! ```toml
//! [marketplace]
//! keys = ["3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29"]
//! [[marketplace.sources]]
//! name = "team"
//! url = "https://plugins.example.com/index.json"   # or a local index file or directory
//! require_signature = true
//! ```

use serde::{Deserialize, Deserializer, Serialize, de::Error};

/// `[marketplace]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct MarketplaceConfig {
    /// Package indexes, searched in order (the first that has a plugin wins).
    #[serde(deserialize_with = "sources")]
    pub sources: Vec<SourceConfig>,
    /// Trusted ed25519 public keys, 64 hexadecimal digits each: a signature is
    /// valid when any of them verifies it.
    #[serde(deserialize_with = "keys")]
    pub keys: Vec<String>,
}

/// `[[marketplace.sources]]`: one package index.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SourceConfig {
    /// The name the source is known by in `ward.lock` and messages.
    pub name: String,
    /// An `http://` or `https://` URL of an index, a local index file, or a local
    /// directory holding `index.json`. Relative paths are resolved against the
    /// directory of the file that declares them when loading.
    pub url: String,
    /// Refuse packages from this source without a valid signature by one of
    /// `keys` (default `false`).
    #[serde(default)]
    pub require_signature: bool,
}

/// Sources with non-empty, unique names and non-empty URLs.
fn sources<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SourceConfig>, D::Error> {
    let list = Vec::<SourceConfig>::deserialize(d)?;
    for (i, source) in list.iter().enumerate() {
        if source.name.trim().is_empty() {
            return Err(D::Error::custom(format!("source {i} has an empty name")));
        }
        if source.url.trim().is_empty() {
            return Err(D::Error::custom(format!(
                "source `{}` has an empty url",
                source.name
            )));
        }
        if list[..i].iter().any(|s| s.name == source.name) {
            return Err(D::Error::custom(format!(
                "two sources are named `{}`",
                source.name
            )));
        }
    }
    Ok(list)
}

/// Public keys: 64 hexadecimal digits each, stored lowercase.
fn keys<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    struct Key(String);
    impl<'de> Deserialize<'de> for Key {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            // Checked inside the visitor so toml locates the error at the entry.
            struct KeyVisitor;
            impl serde::de::Visitor<'_> for KeyVisitor {
                type Value = Key;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("an ed25519 public key as 64 hexadecimal digits")
                }
                fn visit_str<E: Error>(self, text: &str) -> Result<Key, E> {
                    if text.len() == 64 && text.chars().all(|c| c.is_ascii_hexdigit()) {
                        Ok(Key(text.to_ascii_lowercase()))
                    } else {
                        Err(E::custom(format!(
                            "invalid ed25519 public key `{text}`: expected 64 hexadecimal digits"
                        )))
                    }
                }
            }
            d.deserialize_str(KeyVisitor)
        }
    }
    Ok(Vec::<Key>::deserialize(d)?
        .into_iter()
        .map(|k| k.0)
        .collect())
}
