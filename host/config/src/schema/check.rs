//! Field-level value checks run during deserialization, so their errors carry
//! the value's span like any type error.

use serde::{Deserialize, Deserializer, de::Error};

/// An optional `provider/model` reference.
pub(super) fn model_ref<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
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
