//! What checking one call's arguments against a tool's schema can cost, bounded before
//! the check runs.
//!
//! [`crate::tool_schema`] bounds a schema when its plugin loads, but the check's work
//! is the schema's size *times* the arguments': an `anyOf` of many branches, each
//! applying to every element of a large array, costs minutes of host CPU on a blocking
//! thread that cannot be stopped once started. So before the check the host takes an
//! upper bound of its work — every subschema (with `$ref`s expanded) applied to every
//! value, and every regular expression to every string — and refuses a call over
//! [`WORK_BUDGET`]. The bound costs one pass over the arguments. It is conservative:
//! it refuses only calls with very many values against a very large schema (2,000
//! subschemas allow 25,000 values; the `write` tool's schema allows any 1 MiB file).

use serde_json::Value;

use crate::tool_schema::Expanded;

/// The work one argument check may take, in units of about one subschema applied to
/// one value (≈ 15–30 ns each, measured with `jsonschema` 0.61 on the build machine):
/// about a second of one core at worst.
pub const WORK_BUDGET: u64 = 50_000_000;

/// Units one regular-expression match costs besides its string's length: a match
/// costs about 60 times a type check.
const PATTERN_UNITS: u64 = 64;

/// The check would cost more than the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooCostly {
    /// The bound that was over the budget.
    pub units: u64,
}

/// The upper bound of checking `instance` against a schema of size `schema`, or
/// [`TooCostly`] when it is over `budget`.
pub fn bound(schema: Expanded, instance: &Value, budget: u64) -> Result<u64, TooCostly> {
    let mut shape = Shape::default();
    shape.add(instance);
    let units = (schema.nodes as u64)
        .saturating_mul(shape.values)
        .saturating_add(
            (schema.patterns as u64).saturating_mul(
                PATTERN_UNITS
                    .saturating_mul(shape.strings)
                    .saturating_add(shape.string_bytes / 8),
            ),
        );
    if units > budget {
        return Err(TooCostly { units });
    }
    Ok(units)
}

/// How many values, strings (and object keys) and string bytes a document has.
#[derive(Default)]
struct Shape {
    values: u64,
    strings: u64,
    string_bytes: u64,
}

impl Shape {
    fn add(&mut self, v: &Value) {
        self.values += 1;
        match v {
            Value::String(s) => self.string(s),
            Value::Array(items) => items.iter().for_each(|i| self.add(i)),
            Value::Object(map) => {
                for (k, v) in map {
                    self.string(k);
                    self.add(v);
                }
            }
            _ => {}
        }
    }

    fn string(&mut self, s: &str) {
        self.strings += 1;
        self.string_bytes += s.len() as u64;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tool_schema::expanded;

    #[test]
    fn an_ordinary_call_costs_little() {
        let schema = json!({
            "type": "object",
            "properties": {
                "filePath": { "type": "string" },
                "content": { "type": "string" }
            },
            "required": ["filePath", "content"]
        });
        let size = expanded(&schema).unwrap();
        assert_eq!(
            size,
            Expanded {
                nodes: 3,
                patterns: 0
            }
        );
        let args = json!({ "filePath": "a.txt", "content": "x".repeat(1 << 20) });
        assert_eq!(bound(size, &args, WORK_BUDGET), Ok(3 * 3));
    }

    #[test]
    fn subschemas_times_values_and_patterns_times_strings() {
        let branches: Vec<Value> = (0..100)
            .map(|_| json!({ "type": "array", "items": { "type": "string", "pattern": "^a+$" } }))
            .collect();
        let schema =
            json!({ "$defs": { "b": { "anyOf": branches } }, "items": { "$ref": "#/$defs/b" } });
        let size = expanded(&schema).unwrap();
        assert_eq!(
            size,
            Expanded {
                nodes: 203,
                patterns: 100
            }
        );
        let args = json!(vec!["aaaaaaaa"; 1000]);
        let units = 203 * 1001 + 100 * (64 * 1000 + 1000);
        assert_eq!(bound(size, &args, WORK_BUDGET), Ok(units));
        assert_eq!(bound(size, &args, 1000), Err(TooCostly { units }));
    }
}
