//! The body fields a request carries besides the conversation: what the chosen
//! variant sets (a reasoning effort, a thinking budget), what a reasoning model on
//! the Responses API needs to keep its reasoning across turns, and what the
//! `chat.params` hooks add — merged in that order, a later one winning per field.

use serde_json::{Map, Value, json};
use ward_provider::Protocol;

use crate::runner::ModelSetup;

/// The request's `options` for `model`, with the hooks' `hooked` options last;
/// `Value::Null` when there are none.
pub fn options(model: &ModelSetup, hooked: Option<Value>) -> Value {
    let mut merged = Map::new();
    // With `store: false`, reasoning can only be sent back encrypted, and only if
    // the response included it.
    if model.protocol == Protocol::OpenaiResponses && model.reasoning {
        merged.insert("include".into(), json!(["reasoning.encrypted_content"]));
    }
    let variant = model.variant.as_ref().map(|(_, fields)| fields.clone());
    for layer in [variant, hooked].into_iter().flatten() {
        if let Value::Object(fields) = layer {
            for (key, value) in fields {
                merge(merged.entry(key).or_insert(Value::Null), value);
            }
        }
    }
    match merged.is_empty() {
        true => Value::Null,
        false => Value::Object(merged),
    }
}

/// Objects merge field by field (a variant's `reasoning.effort` keeps a hook's
/// `reasoning.summary`); anything else replaces.
fn merge(into: &mut Value, value: Value) {
    match (into, value) {
        (Value::Object(into), Value::Object(fields)) => {
            for (key, value) in fields {
                merge(into.entry(key).or_insert(Value::Null), value);
            }
        }
        (into, value) => *into = value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_layers_win_field_by_field() {
        let mut a = json!({"reasoning": {"effort": "high"}, "x": 1});
        merge(&mut a, json!({"reasoning": {"summary": "auto"}, "x": 2}));
        assert_eq!(
            a,
            json!({"reasoning": {"effort": "high", "summary": "auto"}, "x": 2})
        );
    }
}
