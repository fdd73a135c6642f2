//! Doom-loop detection: the same tool called with identical input three times in a row
//! means the model is stuck, and the user is asked (`doom_loop` permission) before the
//! third call runs.

use serde_json::Value;

/// How many identical consecutive calls make a loop.
pub const THRESHOLD: usize = 3;

/// Whether `next` (tool, input) would be the [`THRESHOLD`]th identical call in a row,
/// given the `previous` calls of this assistant turn, oldest first.
pub fn is_doom_loop(previous: &[(String, Value)], next: &(String, Value)) -> bool {
    previous.len() + 1 >= THRESHOLD
        && previous
            .iter()
            .rev()
            .take(THRESHOLD - 1)
            .all(|(tool, input)| tool == &next.0 && input == &next.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(tool: &str, input: Value) -> (String, Value) {
        (tool.to_string(), input)
    }

    #[test]
    fn three_identical_calls_in_a_row() {
        let a = call("read", json!({"filePath": "a"}));
        assert!(!is_doom_loop(&[], &a));
        assert!(!is_doom_loop(std::slice::from_ref(&a), &a));
        assert!(is_doom_loop(&[a.clone(), a.clone()], &a));
    }

    #[test]
    fn different_input_or_tool_breaks_the_run() {
        let a = call("read", json!({"filePath": "a"}));
        let b = call("read", json!({"filePath": "b"}));
        let c = call("grep", json!({"filePath": "a"}));
        assert!(!is_doom_loop(&[a.clone(), b.clone()], &a));
        assert!(!is_doom_loop(&[a.clone(), c], &a));
        assert!(is_doom_loop(&[b, a.clone(), a.clone()], &a));
    }

    #[test]
    fn key_order_does_not_matter() {
        let x: Value = serde_json::from_str(r#"{"a":1,"b":2}"#).unwrap();
        let y: Value = serde_json::from_str(r#"{"b":2,"a":1}"#).unwrap();
        assert!(is_doom_loop(
            &[call("t", x.clone()), call("t", y)],
            &call("t", x)
        ));
    }
}
