//! Field-level value checks run during deserialization, so their errors carry
//! the value's span like any type error.

use serde::{Deserialize, Deserializer, de::Error};

/// An optional `provider/model` reference (for `#[serde(deserialize_with)]`; the
/// agent and command front matter use it too).
pub fn model_ref<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let value = String::deserialize(d)?;
    match value.split_once('/') {
        Some((provider, model)) if !provider.is_empty() && !model.is_empty() => Ok(Some(value)),
        _ => Err(D::Error::custom(format!(
            "expected a model as `provider/model`, found `{value}`"
        ))),
    }
}

/// An optional fraction in (0, 1].
pub(super) fn fraction<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let value = f64::deserialize(d)?;
    if value > 0.0 && value <= 1.0 {
        Ok(Some(value))
    } else {
        Err(D::Error::custom(format!(
            "expected a fraction greater than 0 and at most 1, found {value}"
        )))
    }
}

/// An optional token count that must be at least 1 (a limit of 0 would make
/// every request overflow).
pub(super) fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let value = u64::deserialize(d)?;
    if value > 0 {
        Ok(Some(value))
    } else {
        Err(D::Error::custom(
            "expected a token count of at least 1, found 0",
        ))
    }
}

/// An optional price: a finite number, zero or more.
pub(super) fn price<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let value = f64::deserialize(d)?;
    if value.is_finite() && value >= 0.0 {
        Ok(Some(value))
    } else {
        Err(D::Error::custom(format!(
            "expected a price of 0 or more (USD per million tokens), found {value}"
        )))
    }
}
