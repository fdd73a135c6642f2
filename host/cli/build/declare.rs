//! Asks a standard plugin, at build time, what it declares: its tools (`list-tools`), its
//! hook registration (`register`), its agents (`agents`) and its skills (`list-skills`).
//!
//! A fresh data directory would otherwise instantiate every standard component on the
//! first run only to learn these (all of them, to list the tools to the model): about
//! 15 MB of native code copied in and mapped for answers that are fixed for given bytes.
//! The answers are embedded beside the component as one JSON object whose sections have
//! the shapes the runtime's declaration cache uses (`ward_plugin::meta`); `ward`'s unit
//! tests check them against a real load of each component.
//!
//! The component runs with every import defined as a trap: the declaration functions
//! must not call the host (the contract says they have no side effects), and one that
//! did fails the build with the trap's message.

use serde_json::{Map, Value};
use wasmtime::component::{Component, Linker, Val};
use wasmtime::{Engine, Store};

/// Each declaration function: (interface, function, section of the JSON).
const DECLARATIONS: &[(&str, &str, &str)] = &[
    ("tool", "list-tools", "tools"),
    ("hooks", "register", "hooks"),
    ("agent", "agents", "agents"),
    ("skill", "list-skills", "skills"),
];

/// The declarations of `component` as a JSON object with a section per interface it
/// exports.
pub(crate) fn declarations(engine: &Engine, component: &Component) -> Result<Value, String> {
    let mut linker = Linker::<()>::new(engine);
    linker
        .define_unknown_imports_as_traps(component)
        .map_err(|e| format!("cannot stub its imports: {e}"))?;
    let mut store = Store::new(engine, ());
    // The engine interrupts guests by epoch; nothing advances it here.
    store.set_epoch_deadline(u64::MAX);
    let instance = linker
        .instantiate(&mut store, component)
        .map_err(|e| format!("cannot instantiate: {e:#}"))?;
    let exports: Vec<String> = component
        .component_type()
        .exports(engine)
        .map(|(name, _)| name.to_string())
        .collect();
    let mut out = Map::new();
    for (interface, function, section) in DECLARATIONS {
        let unversioned = format!("ward:plugin/{interface}");
        let Some(name) = exports
            .iter()
            .find(|e| **e == unversioned || e.starts_with(&format!("{unversioned}@")))
        else {
            continue;
        };
        let func = instance
            .get_export_index(&mut store, None, name)
            .and_then(|i| instance.get_export_index(&mut store, Some(&i), function))
            .and_then(|i| instance.get_func(&mut store, i))
            .ok_or_else(|| format!("`{name}` has no function `{function}`"))?;
        let mut results = [Val::Bool(false)];
        func.call(&mut store, &[], &mut results)
            .map_err(|e| format!("`{name}.{function}` failed: {e:#}"))?;
        let [result] = results;
        out.insert((*section).to_string(), json(&result));
    }
    Ok(Value::Object(out))
}

/// A component value as JSON: records as objects with snake_case keys, enums as their
/// case names, options as the value or `null`. A permission rule record becomes the
/// `[permission, pattern, action]` triple the runtime's agent declarations use.
fn json(value: &Val) -> Value {
    match value {
        Val::Bool(b) => Value::Bool(*b),
        Val::S8(n) => Value::from(*n),
        Val::U8(n) => Value::from(*n),
        Val::S16(n) => Value::from(*n),
        Val::U16(n) => Value::from(*n),
        Val::S32(n) => Value::from(*n),
        Val::U32(n) => Value::from(*n),
        Val::S64(n) => Value::from(*n),
        Val::U64(n) => Value::from(*n),
        Val::Float32(n) => Value::from(f64::from(*n)),
        Val::Float64(n) => Value::from(*n),
        Val::Char(c) => Value::String(c.to_string()),
        Val::String(s) => Value::String(s.clone()),
        Val::Enum(case) => Value::String(case.clone()),
        Val::Option(v) => v.as_deref().map_or(Value::Null, json),
        Val::List(items) | Val::Tuple(items) | Val::FixedLengthList(items) => {
            Value::Array(items.iter().map(json).collect())
        }
        Val::Record(fields) => {
            let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
            if names == ["permission", "pattern", "action"] {
                return Value::Array(fields.iter().map(|(_, v)| json(v)).collect());
            }
            Value::Object(
                fields
                    .iter()
                    .map(|(name, v)| (name.replace('-', "_"), json(v)))
                    .collect(),
            )
        }
        Val::Flags(names) => Value::Array(names.iter().cloned().map(Value::String).collect()),
        // Not in any declaration's type: kept visible rather than guessed at.
        other => Value::String(format!("unsupported value {other:?}")),
    }
}
