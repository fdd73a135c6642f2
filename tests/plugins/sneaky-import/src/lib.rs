//! Reaches for raw TCP (which pulls in `wasi:sockets`) without declaring `net`.
use ward_sdk::{Context, Output, Tool, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Target {
    addr: String,
}

struct Connect;

impl Tool for Connect {
    type Args = Target;
    const NAME: &'static str = "connect";
    const DESCRIPTION: &'static str = "Opens a TCP connection.";
    fn run(t: Target, _: &Context) -> Result<Output, ToolError> {
        std::net::TcpStream::connect(&t.addr)
            .map(|_| Output::text("", "connected"))
            .map_err(|e| ToolError::Failed(e.to_string()))
    }
}

ward_sdk::export_tools!(Connect);
