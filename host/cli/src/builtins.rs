//! The first-party plugins built into this binary by its build script
//! (`build/main.rs`), with what `ward plugin embed-builtins` made of them when the
//! build ran it (`scripts/build.sh`, `scripts/test.sh`).

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

/// The engine's options for the project at or above `directory`, with the plugins
/// that come with this binary (and the sandbox helper beside it).
pub fn engine_options(directory: std::path::PathBuf) -> ward_engine::EngineOptions {
    ward_engine::EngineOptions::new(directory).builtins(BUILTINS)
}

#[cfg(test)]
mod tests {
    use ward_plugin::discovery::{Builtin, discover};
    use ward_plugin::{HostOptions, PluginHost};

    use super::BUILTINS;

    fn host(builtins: &[Builtin]) -> PluginHost {
        let found = discover(builtins, &[]);
        assert!(found.errors.is_empty(), "{:?}", found.errors);
        PluginHost::new(found.plugins, HostOptions::default()).expect("host")
    }

    /// What the build embedded is what each component declares when loaded: the same
    /// tools, hooks, agents and skills.
    #[tokio::test]
    async fn embedded_declarations_match_the_components() {
        assert!(!BUILTINS.is_empty());
        assert!(
            BUILTINS
                .iter()
                .all(|b| !b.declared.is_empty() && !b.precompiled.is_empty()),
            "built without the standard plugins' artifacts: build as scripts/test.sh does"
        );
        let embedded = host(BUILTINS);
        let asked: Vec<Builtin> = BUILTINS
            .iter()
            .map(|b| Builtin {
                declared: "",
                sha256: "",
                ..*b
            })
            .collect();
        let loaded = host(&asked);
        let mut tools = 0;
        for (e, l) in embedded.plugins().iter().zip(loaded.plugins()) {
            assert_eq!(e.name(), l.name());
            let described = |tools: Vec<ward_plugin::ToolInfo>| -> Vec<(String, String, String)> {
                tools
                    .into_iter()
                    .map(|t| (t.name, t.description, t.parameters))
                    .collect()
            };
            let from_build = described(embedded.tools_of(e).await.expect("embedded tools"));
            assert_eq!(
                from_build,
                described(loaded.tools_of(l).await.expect("loaded tools")),
                "{}",
                e.name()
            );
            tools += from_build.len();
            assert_eq!(
                embedded.hooks_of(e).await.expect("embedded hooks"),
                loaded.hooks_of(l).await.expect("loaded hooks"),
                "{}",
                e.name()
            );
            assert_eq!(
                embedded.agents_of(e).await.expect("embedded agents"),
                loaded.agents_of(l).await.expect("loaded agents"),
                "{}",
                e.name()
            );
            assert_eq!(
                embedded.skills_of(e).await.expect("embedded skills"),
                loaded.skills_of(l).await.expect("loaded skills"),
                "{}",
                e.name()
            );
        }
        assert!(tools >= 10, "{tools} tools");
    }
}
