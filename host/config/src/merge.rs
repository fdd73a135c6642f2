//! Deep merge of configuration layers.
//!
//! Tables merge key by key; any other value (arrays included) is replaced by
//! the later layer. A key set by a later layer also moves to the end of its
//! table: for ordered tables such as `[permission]`, where the last matching
//! rule wins, a later layer's rules must come after an earlier layer's, or a
//! project could not override a global `"*"` rule it re-states.

use toml::{Table, Value};

/// Merges `over` into `base`; `over` wins.
pub(crate) fn merge(base: &mut Table, over: Table) {
    for (key, value) in over {
        let merged = match (base.remove(&key), value) {
            (Some(Value::Table(mut earlier)), Value::Table(later)) => {
                merge(&mut earlier, later);
                Value::Table(earlier)
            }
            (_, later) => later,
        };
        base.insert(key, merged);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn tables_merge_deeply_and_arrays_are_replaced() {
        let mut base = table("a = 1\nlist = [1, 2]\n[t]\nx = 1\ny = 2\n");
        merge(&mut base, table("list = [3]\n[t]\ny = 20\nz = 30\n"));
        assert_eq!(
            base,
            table("a = 1\nlist = [3]\n[t]\nx = 1\ny = 20\nz = 30\n")
        );
    }

    #[test]
    fn later_keys_move_to_the_end_so_their_rules_win() {
        let mut base = table("[bash]\n\"*\" = \"ask\"\n\"git status\" = \"allow\"\n");
        merge(&mut base, table("[bash]\n\"*\" = \"deny\"\n"));
        let keys: Vec<_> = base["bash"].as_table().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["git status", "*"]);
    }

    #[test]
    fn a_value_replaces_a_table_and_back() {
        let mut base = table("[permission]\nedit = { \"*\" = \"ask\" }\n");
        merge(&mut base, table("[permission]\nedit = \"deny\"\n"));
        assert_eq!(base, table("[permission]\nedit = \"deny\"\n"));
    }
}
