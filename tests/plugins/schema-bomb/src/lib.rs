//! Declares a tool whose argument schema is small as text but exponential to check:
//! `a0` is `anyOf [a1, a1]`, `a1` is `anyOf [a2, a2]`, …, down to a backtracking
//! pattern. A string that fails the pattern makes a checker try all 2^DEPTH paths.
use std::borrow::Cow;

use ward_sdk::{Context, Output, Tool, ToolError};

/// Levels of two-way `anyOf`: 2^24 paths.
const DEPTH: usize = 24;

struct Bomb {}

impl<'de> serde::Deserialize<'de> for Bomb {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(|_| Bomb {})
    }
}

impl schemars::JsonSchema for Bomb {
    fn schema_name() -> Cow<'static, str> {
        "Bomb".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut defs = serde_json::Map::new();
        for i in 0..DEPTH {
            let next = format!("#/$defs/a{}", i + 1);
            defs.insert(
                format!("a{i}"),
                serde_json::json!({ "anyOf": [{ "$ref": next }, { "$ref": next }] }),
            );
        }
        defs.insert(
            format!("a{DEPTH}"),
            serde_json::json!({ "type": "string", "pattern": "^(a|aa)+$" }),
        );
        let schema = serde_json::json!({
            "type": "object",
            "properties": { "x": { "$ref": "#/$defs/a0" } },
            "$defs": defs,
        });
        schemars::Schema::try_from(schema).unwrap_or_default()
    }
}

struct SchemaBomb;

impl Tool for SchemaBomb {
    type Args = Bomb;
    const NAME: &'static str = "bomb_schema";
    const DESCRIPTION: &'static str = "Its arguments take forever to check.";
    fn run(_: Bomb, _: &Context) -> Result<Output, ToolError> {
        Ok(Output::text("", "checked"))
    }
}

ward_sdk::export_tools!(SchemaBomb);
