//! A tool plugin built against `ward:plugin@0.9.0`.

#![allow(
    missing_docs,
    reason = "the crate is wit-bindgen's generated bindings of an inline contract"
)]

wit_bindgen::generate!({
    inline: r#"
        package ward:plugin@0.9.0;
        interface host {
            log: func(message: string);
        }
        interface tool {
            record tool-info { name: string, description: string, parameters: string }
            list-tools: func() -> list<tool-info>;
        }
        world tool-plugin {
            import host;
            export tool;
        }
    "#,
});

struct Future;

impl exports::ward::plugin::tool::Guest for Future {
    fn list_tools() -> Vec<exports::ward::plugin::tool::ToolInfo> {
        ward::plugin::host::log("hello from the future");
        Vec::new()
    }
}

export!(Future);
