//! What a tool's parameter schema may cost the host. The host checks every call's
//! arguments against the schema the plugin declared before the sandboxed call starts,
//! outside the plugin's time and memory limits; a schema small as text can make that
//! check take exponential time (`anyOf` chains through `$ref`), recurse without end
//! (`$ref` cycles), or compile enormous regular expressions. So a schema is measured
//! when the plugin loads and the plugin refused if any bound is exceeded:
//!
//! - its text: at most [`MAX_SCHEMA_BYTES`];
//! - its size with every `$ref` expanded in place — the work one instance location can
//!   cost: at most [`MAX_SCHEMA_NODES`] subschemas, nested at most
//!   [`MAX_SCHEMA_DEPTH`] deep;
//! - references: local JSON pointers only (`#/$defs/name`), never recursive, and
//!   no dynamic references or anchors (whose targets depend on the instance);
//! - regular expressions (`pattern`, `patternProperties` keys): at most
//!   [`MAX_PATTERN_BYTES`] each.
//!
//! With these bounds, checking arguments costs at most the expanded size times the
//! arguments' size; the caller bounds the arguments and runs the check under the call's
//! deadline.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::bindings::ToolInfo;
use crate::load_error::DeclarationRefused;

/// The largest schema text, in bytes.
pub const MAX_SCHEMA_BYTES: usize = 64 << 10;
/// The most subschemas a schema may expand to, counting each `$ref` as a copy of its
/// target.
pub const MAX_SCHEMA_NODES: usize = 2_000;
/// The deepest nesting of subschemas, through `$ref`s.
pub const MAX_SCHEMA_DEPTH: usize = 48;
/// The longest regular expression, in bytes.
pub const MAX_PATTERN_BYTES: usize = 1 << 10;

/// Why a schema was refused.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum SchemaRefused {
    /// The text is too large.
    #[error("it is {size} bytes, more than {MAX_SCHEMA_BYTES}")]
    TooLarge {
        /// Its size.
        size: usize,
    },
    /// Expanded, it has too many subschemas.
    #[error("with its `$ref`s expanded it has more than {MAX_SCHEMA_NODES} subschemas")]
    TooManyNodes,
    /// Expanded, it nests too deep.
    #[error("with its `$ref`s expanded it nests more than {MAX_SCHEMA_DEPTH} subschemas deep")]
    TooDeep,
    /// A regular expression is too long.
    #[error("a pattern is {len} bytes, more than {MAX_PATTERN_BYTES}")]
    PatternTooLong {
        /// Its length.
        len: usize,
    },
    /// A `$ref` is not a local JSON pointer.
    #[error("`$ref` \"{0}\" is not a local JSON pointer (`#/…`)")]
    NonLocalRef(String),
    /// A `$ref` points nowhere.
    #[error("`$ref` \"{0}\" points nowhere")]
    UnresolvedRef(String),
    /// A `$ref` refers, directly or not, to a schema containing it.
    #[error("`$ref` \"{0}\" is recursive")]
    RecursiveRef(String),
    /// A keyword whose meaning depends on the instance or on other documents.
    #[error("keyword `{0}` is not supported in tool schemas")]
    Unsupported(String),
}

/// Measures `schema` (a tool's parameter schema as declared). Text that is not JSON is
/// not refused here: the host then does not check arguments against it at all.
pub fn check(schema: &str) -> Result<(), SchemaRefused> {
    if schema.len() > MAX_SCHEMA_BYTES {
        return Err(SchemaRefused::TooLarge { size: schema.len() });
    }
    let Ok(root) = serde_json::from_str::<Value>(schema) else {
        return Ok(());
    };
    expanded(&root).map(|_| ())
}

/// A schema's size with every `$ref` expanded in place (what checking one value
/// against it can cost; see [`crate::schema_work`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Expanded {
    /// Subschemas, plus one per `enum` option.
    pub nodes: usize,
    /// Regular expressions (`pattern`, `patternProperties` keys).
    pub patterns: usize,
}

/// Measures the parsed schema `root`, refusing it past the bounds above.
pub fn expanded(root: &Value) -> Result<Expanded, SchemaRefused> {
    let mut walk = Walk {
        root,
        refs: HashMap::new(),
        open: HashSet::new(),
    };
    let size = walk.schema(root, true)?;
    if size.nodes > MAX_SCHEMA_NODES {
        return Err(SchemaRefused::TooManyNodes);
    }
    Ok(Expanded {
        nodes: size.nodes.saturating_add(size.options),
        patterns: size.patterns,
    })
}

/// Measures every tool's schema; the error names the first tool refused and why.
pub(crate) fn check_tools(tools: &[ToolInfo]) -> Result<(), DeclarationRefused> {
    tools.iter().try_for_each(|t| {
        check(&t.parameters).map_err(|reason| DeclarationRefused::Schema {
            tool: t.name.clone(),
            reason,
        })
    })
}

/// The expanded size of a subschema.
#[derive(Clone, Copy, Default)]
struct Size {
    nodes: usize,
    depth: usize,
    /// `enum` options and regular expressions, expanded like the nodes.
    options: usize,
    patterns: usize,
}

impl Size {
    fn add(&mut self, child: Size) -> Result<(), SchemaRefused> {
        self.nodes = self.nodes.saturating_add(child.nodes);
        self.options = self.options.saturating_add(child.options);
        self.patterns = self.patterns.saturating_add(child.patterns);
        self.depth = self.depth.max(child.depth);
        if self.nodes > MAX_SCHEMA_NODES {
            return Err(SchemaRefused::TooManyNodes);
        }
        Ok(())
    }
}

struct Walk<'a> {
    root: &'a Value,
    /// Sizes of `$ref` targets already measured: each is measured once, so measuring
    /// costs the text's size, not the expansion's.
    refs: HashMap<String, Size>,
    /// `$ref`s being expanded, to find cycles.
    open: HashSet<String>,
}

impl Walk<'_> {
    /// The expanded size of the subschema `value` (`is_root`: the document itself).
    fn schema(&mut self, value: &Value, is_root: bool) -> Result<Size, SchemaRefused> {
        let Value::Object(map) = value else {
            // `true`, `false`, or not a schema (which the validator will refuse).
            return Ok(Size {
                nodes: 1,
                depth: 1,
                ..Size::default()
            });
        };
        let mut size = Size::default();
        for (keyword, v) in map {
            match keyword.as_str() {
                "properties" | "dependentSchemas" => size.add(self.each_value(v)?)?,
                "patternProperties" => {
                    if let Value::Object(m) = v {
                        m.keys().try_for_each(|p| pattern(p))?;
                        size.patterns = size.patterns.saturating_add(m.len());
                    }
                    size.add(self.each_value(v)?)?;
                }
                // Arrays in draft 4–7 `dependencies` are property lists, not schemas.
                "dependencies" => {
                    if let Value::Object(m) = v {
                        for d in m.values().filter(|d| !d.is_array()) {
                            size.add(self.schema(d, false)?)?;
                        }
                    }
                }
                "items" if v.is_array() => size.add(self.each_item(v)?)?,
                "prefixItems" | "allOf" | "anyOf" | "oneOf" => size.add(self.each_item(v)?)?,
                "items"
                | "additionalItems"
                | "additionalProperties"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "contains"
                | "propertyNames"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contentSchema" => size.add(self.schema(v, false)?)?,
                "$ref" => size.add(self.reference(v)?)?,
                "$id" if is_root => {}
                "$id" | "$anchor" | "$dynamicAnchor" | "$dynamicRef" | "$recursiveAnchor"
                | "$recursiveRef" => return Err(SchemaRefused::Unsupported(keyword.clone())),
                "pattern" => {
                    if let Value::String(p) = v {
                        pattern(p)?;
                        size.patterns = size.patterns.saturating_add(1);
                    }
                }
                "enum" => {
                    if let Value::Array(options) = v {
                        size.options = size.options.saturating_add(options.len());
                    }
                }
                // `$defs` count where they are used; the rest are not subschemas.
                _ => {}
            }
        }
        size.nodes = size.nodes.saturating_add(1);
        size.depth += 1;
        if size.depth > MAX_SCHEMA_DEPTH {
            return Err(SchemaRefused::TooDeep);
        }
        if size.nodes > MAX_SCHEMA_NODES {
            return Err(SchemaRefused::TooManyNodes);
        }
        Ok(size)
    }

    /// The subschemas in a map of them (`properties`, …), side by side.
    fn each_value(&mut self, v: &Value) -> Result<Size, SchemaRefused> {
        let mut size = Size::default();
        if let Value::Object(m) = v {
            for s in m.values() {
                size.add(self.schema(s, false)?)?;
            }
        }
        Ok(size)
    }

    /// The subschemas in an array of them (`anyOf`, …), side by side.
    fn each_item(&mut self, v: &Value) -> Result<Size, SchemaRefused> {
        let mut size = Size::default();
        if let Value::Array(a) = v {
            for s in a {
                size.add(self.schema(s, false)?)?;
            }
        }
        Ok(size)
    }

    /// The expanded size of the target of `$ref` `v`.
    fn reference(&mut self, v: &Value) -> Result<Size, SchemaRefused> {
        let Value::String(r) = v else {
            return Ok(Size::default());
        };
        if let Some(size) = self.refs.get(r) {
            return Ok(*size);
        }
        let pointer = r
            .strip_prefix('#')
            .filter(|p| p.is_empty() || (p.starts_with('/') && !p.contains('%')))
            .ok_or_else(|| SchemaRefused::NonLocalRef(r.clone()))?;
        let target = self
            .root
            .pointer(pointer)
            .ok_or_else(|| SchemaRefused::UnresolvedRef(r.clone()))?;
        if !self.open.insert(r.clone()) {
            return Err(SchemaRefused::RecursiveRef(r.clone()));
        }
        let size = self.schema(target, std::ptr::eq(target, self.root))?;
        self.open.remove(r);
        self.refs.insert(r.clone(), size);
        Ok(size)
    }
}

fn pattern(p: &str) -> Result<(), SchemaRefused> {
    if p.len() > MAX_PATTERN_BYTES {
        return Err(SchemaRefused::PatternTooLong { len: p.len() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    type Object = serde_json::Map<String, Value>;

    fn verdict(schema: Value) -> Result<(), SchemaRefused> {
        check(&schema.to_string())
    }

    /// `a0` = anyOf [a1, a1], …, `a{depth}` = a string: 2^depth paths in 2·depth lines.
    fn chain(depth: usize) -> Value {
        let mut defs = Object::new();
        for i in 0..depth {
            let next = format!("#/$defs/a{}", i + 1);
            defs.insert(
                format!("a{i}"),
                json!({ "anyOf": [{ "$ref": next }, { "$ref": next }] }),
            );
        }
        defs.insert(format!("a{depth}"), json!({ "type": "string" }));
        json!({ "type": "object", "properties": { "x": { "$ref": "#/$defs/a0" } }, "$defs": defs })
    }

    #[test]
    fn ordinary_schemas_pass() {
        let read = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "ReadArgs",
            "type": "object",
            "properties": {
                "filePath": { "type": "string", "pattern": "^[^\\0]+$" },
                "limit": { "type": ["integer", "null"], "format": "uint", "minimum": 0 },
                "mode": { "$ref": "#/$defs/Mode" }
            },
            "required": ["filePath"],
            "$defs": { "Mode": { "enum": ["a", "b"] } }
        });
        assert_eq!(verdict(read), Ok(()));
        assert_eq!(verdict(chain(8)), Ok(()));
        assert_eq!(check("not json"), Ok(()));
    }

    #[test]
    fn exponential_ref_chains_are_refused() {
        assert_eq!(verdict(chain(24)), Err(SchemaRefused::TooManyNodes));
    }

    #[test]
    fn recursive_refs_are_refused() {
        let tree = json!({
            "$defs": { "node": { "type": "array", "items": { "$ref": "#/$defs/node" } } },
            "$ref": "#/$defs/node"
        });
        assert!(matches!(verdict(tree), Err(SchemaRefused::RecursiveRef(_))));
        let root = json!({ "properties": { "self": { "$ref": "#" } } });
        assert!(matches!(verdict(root), Err(SchemaRefused::RecursiveRef(_))));
    }

    #[test]
    fn foreign_and_dangling_refs_are_refused() {
        let remote = json!({ "$ref": "https://example.com/schema.json" });
        assert!(matches!(
            verdict(remote),
            Err(SchemaRefused::NonLocalRef(_))
        ));
        let dangling = json!({ "$ref": "#/$defs/missing" });
        assert!(matches!(
            verdict(dangling),
            Err(SchemaRefused::UnresolvedRef(_))
        ));
        let dynamic = json!({ "$dynamicRef": "#meta" });
        assert!(matches!(
            verdict(dynamic),
            Err(SchemaRefused::Unsupported(_))
        ));
    }

    #[test]
    fn deep_nesting_is_refused() {
        let mut s = json!({ "type": "string" });
        for _ in 0..60 {
            s = json!({ "not": s });
        }
        assert_eq!(verdict(s), Err(SchemaRefused::TooDeep));
        // Through `$ref`s too: each step a separate definition.
        let mut defs = Object::new();
        for i in 0..60 {
            defs.insert(
                format!("d{i}"),
                json!({ "not": { "$ref": format!("#/$defs/d{}", i + 1) } }),
            );
        }
        defs.insert("d60".into(), json!({}));
        let s = json!({ "$ref": "#/$defs/d0", "$defs": defs });
        assert_eq!(verdict(s), Err(SchemaRefused::TooDeep));
    }

    #[test]
    fn wide_combinators_are_refused() {
        let branches: Vec<Value> = (0..3000).map(|i| json!({ "const": i })).collect();
        assert_eq!(
            verdict(json!({ "oneOf": branches })),
            Err(SchemaRefused::TooManyNodes)
        );
    }

    #[test]
    fn huge_text_and_patterns_are_refused() {
        let big = json!({ "description": "d".repeat(MAX_SCHEMA_BYTES) });
        assert!(matches!(verdict(big), Err(SchemaRefused::TooLarge { .. })));
        let p = "(a+)+".repeat(300);
        assert!(matches!(
            verdict(json!({ "pattern": p })),
            Err(SchemaRefused::PatternTooLong { .. })
        ));
        assert!(matches!(
            verdict(json!({ "patternProperties": { p: {} } })),
            Err(SchemaRefused::PatternTooLong { .. })
        ));
    }

    #[test]
    fn a_property_named_like_a_keyword_is_still_measured() {
        let mut defs = Object::new();
        for i in 0..20 {
            let next = format!("#/$defs/a{}", i + 1);
            defs.insert(
                format!("a{i}"),
                json!({ "anyOf": [{ "$ref": next }, { "$ref": next }] }),
            );
        }
        defs.insert("a20".into(), json!({}));
        let s = json!({
            "properties": { "enum": { "$ref": "#/$defs/a0" }, "$defs": {} },
            "$defs": defs
        });
        assert_eq!(verdict(s), Err(SchemaRefused::TooManyNodes));
    }
}
