//! The router and the OpenAPI document, made from the same list of handlers so
//! the document cannot drift from what is served.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::App;
use crate::guard::{self, Guard};
use crate::routes::{
    app, diff, events, fork, messages, permissions, project, question, revert, services, sessions,
    unserved,
};
use crate::wire::event::EventInfo;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Ward",
        description = "Ward's engine over HTTP: OpenCode's session API (routes, fields, \
                       events) for what Ward shares with it. Every route but \
                       /global/health needs `Authorization: Bearer <token>`."
    ),
    components(schemas(EventInfo))
)]
struct ApiDoc;

/// The handlers with their OpenAPI descriptions.
fn api() -> OpenApiRouter<App> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(app::health))
        .routes(routes!(app::config))
        .routes(routes!(app::config_providers))
        .routes(routes!(app::providers))
        .routes(routes!(app::agents))
        .routes(routes!(app::commands))
        .routes(routes!(project::paths))
        .routes(routes!(project::vcs))
        .routes(routes!(project::current))
        .routes(routes!(services::mcp))
        .routes(routes!(services::lsp))
        .routes(routes!(services::formatter))
        .routes(routes!(services::provider_auth))
        .routes(routes!(events::subscribe))
        .routes(routes!(events::subscribe_global))
        .routes(routes!(sessions::list, sessions::create))
        .routes(routes!(sessions::status))
        .routes(routes!(sessions::get, sessions::update, sessions::delete))
        .routes(routes!(sessions::children))
        .routes(routes!(sessions::todo))
        .routes(routes!(diff::diff))
        .routes(routes!(sessions::abort))
        .routes(routes!(fork::fork))
        .routes(routes!(revert::revert))
        .routes(routes!(revert::unrevert))
        .routes(routes!(messages::list, messages::prompt))
        .routes(routes!(messages::get))
        .routes(routes!(messages::prompt_async))
        .routes(routes!(permissions::list))
        .routes(routes!(permissions::reply))
        .routes(routes!(permissions::respond))
        .routes(routes!(question::list))
        .routes(routes!(question::reply))
        .routes(routes!(question::reject))
}

/// Everything served: the API, `/doc`, the web page, all behind the guard.
pub fn router(app: App, guard: Arc<Guard>) -> Router {
    let (api, doc) = api().split_for_parts();
    let doc = Arc::new(doc.to_pretty_json().unwrap_or_default());
    let doc_route = Router::new().route(
        "/doc",
        axum::routing::get(|State(doc): State<Arc<String>>| async move {
            ([(header::CONTENT_TYPE, "application/json")], (*doc).clone()).into_response()
        })
        .with_state(doc),
    );
    api.with_state(app)
        .merge(doc_route)
        .merge(crate::web::routes())
        .fallback(unserved::fallback)
        .method_not_allowed_fallback(unserved::method_fallback)
        .layer(axum::middleware::from_fn_with_state(guard, guard::check))
}
