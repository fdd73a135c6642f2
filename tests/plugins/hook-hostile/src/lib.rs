//! A hostile hook plugin for the test suite: its before-hook spins forever on `bash`,
//! its after-hook hoards memory on `noop`, and its event hook spins. The host must
//! stop each within the limits, block the guarded `bash` call (fail closed), keep
//! `noop`'s result, never make an event publisher wait, and disable the plugin after
//! repeated failures.
use std::hint::black_box;

use serde_json::Value;
use ward_sdk::hooks::{After, Before, HookPoint, Hooks};
use ward_sdk::{Context, ToolOutput};

fn spin() -> ! {
    let mut x = 0u64;
    loop {
        x = black_box(x.wrapping_add(1));
    }
}

struct Hostile;

impl Hooks for Hostile {
    const HOOKS: &'static [HookPoint] = &[
        HookPoint::ToolExecuteBefore,
        HookPoint::ToolExecuteAfter,
        HookPoint::Event,
    ];
    const TOOLS: &'static [&'static str] = &["bash", "noop"];

    fn tool_execute_before(tool: &str, _: &Value, _: &Context) -> Before {
        if tool == "bash" {
            spin();
        }
        Before::Proceed
    }

    fn tool_execute_after(tool: &str, _: &Value, _: &ToolOutput, _: &Context) -> After {
        if tool == "noop" {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(black_box(vec![1u8; 1 << 20]));
            }
        }
        After::default()
    }

    fn event(_: &str, _: &str) {
        spin();
    }
}

ward_sdk::export_hooks!(Hostile);
