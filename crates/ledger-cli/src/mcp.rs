//! `ledger mcp`: the agent's door as a Model Context Protocol server on
//! stdio (docs/agents.md), built on `rmcp`, the official Rust SDK.
//!
//! This file only speaks the protocol. The tools, their schemas and what a
//! read-only server may do are the core's (`ledger_core::door::agent`); a
//! call runs the door's verb on a blocking thread of its own, so parallel
//! tool calls run in parallel and meet the store as any two callers do. The
//! server keeps nothing between calls but the fixed workspace and settings.

use std::sync::Arc;
use std::time::{Duration, Instant};

use camino::Utf8PathBuf;
use clap::Args;
use ledger_core::door::agent::{self, Tool as AgentTool};
use ledger_core::door::{Hooks, cancel};
use ledger_core::{Error, Settings};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProgressToken,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// How often a call that runs long tells a client that asked for progress.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

#[derive(Args)]
pub struct McpArgs {
    /// The workspace every tool works in, fixed for the server's life [default:
    /// the top of the Git checkout containing the current directory, else the
    /// current directory]. No tool argument can name another.
    #[arg(long, value_name = "DIR")]
    workspace: Option<Utf8PathBuf>,
    /// Offer only the tools that read: none that records anything or runs a
    /// command, and refuse those (code `read-only`) if called anyway.
    #[arg(long)]
    read_only: bool,
}

/// The server: the workspace and settings it was started with.
#[derive(Clone)]
struct Server {
    workspace: Arc<Utf8PathBuf>,
    settings: Arc<Settings>,
    read_only: bool,
}

/// Serves MCP on stdin/stdout until the client closes its end.
pub fn serve(args: McpArgs, settings: &Settings) -> Result<(), Error> {
    let workspace = match args.workspace {
        Some(dir) => dir,
        None => crate::scope_args::default_workspace()?,
    };
    let workspace = workspace
        .canonicalize_utf8()
        .map_err(|source| Error::Unreadable {
            path: workspace.as_str().into(),
            operation: "open the workspace of the MCP server",
            source,
        })?;
    // No progress line on stderr: a client may show it as the server's log.
    let mut settings = settings.clone();
    settings.progress = None;
    let server = Server {
        workspace: Arc::new(workspace),
        settings: Arc::new(settings),
        read_only: args.read_only,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| io_failure("start the MCP server", source))?;
    runtime.block_on(async move {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| io_failure("start the MCP session", std::io::Error::other(e)))?;
        running
            .waiting()
            .await
            .map_err(|e| io_failure("serve the MCP session", std::io::Error::other(e)))?;
        Ok(())
    })
}

fn io_failure(operation: &'static str, source: std::io::Error) -> Error {
    Error::Unreadable {
        path: "<stdio>".into(),
        operation,
        source,
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mode = match self.read_only {
            true => " This server is read-only: it records nothing and runs no command.",
            false => "",
        };
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("ledger", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "ledger binds approvals and gate results to the content of files. Call `check` at the start of every session: it says, from the records, what still stands and what to do next. Workspace: {}.{mode}",
                self.workspace
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = agent::listings(self.read_only)
            .into_iter()
            .map(|listed| {
                serde_json::from_value::<Tool>(listed)
                    .map_err(|e| ErrorData::internal_error(format!("a tool's listing: {e}"), None))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tool = match agent::tool(&request.name, self.read_only) {
            Ok(tool) => tool,
            Err(e @ Error::ReadOnly { .. }) => return Ok(failed(&e).into()),
            Err(e) => return Err(ErrorData::invalid_params(e.to_string(), None)),
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        Ok(self.run(tool, arguments, context).await.into())
    }
}

impl Server {
    /// Runs `tool` on a blocking thread, cancelled with the request, telling
    /// the client how long it has run when it asked for progress.
    async fn run(
        &self,
        tool: &'static AgentTool,
        arguments: Value,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let token = cancel::new_token();
        let hooks = Hooks {
            interrupt: None,
            cancel: Some(token),
        };
        let cancelled = context.ct.clone();
        let canceller = tokio::spawn(async move {
            cancelled.cancelled().await;
            cancel::cancel(token);
        });
        let ticker = context
            .meta
            .get_progress_token()
            .map(|progress| tokio::spawn(tick(context.peer.clone(), progress, tool.name)));
        let server = self.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            agent::call_tool(
                tool,
                server.read_only,
                &server.workspace,
                &server.settings,
                &arguments,
                &hooks,
            )
        })
        .await;
        canceller.abort();
        if let Some(ticker) = ticker {
            ticker.abort();
        }
        cancel::release(token);
        match outcome {
            Ok(Ok((reply, warnings))) => {
                let mut text = reply.text;
                for warning in warnings {
                    text.push_str(&format!("warning[{}]: {}\n", warning.code, warning.message));
                }
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(reply.result);
                result
            }
            Ok(Err(e)) => failed(&e),
            Err(panicked) => failed(&Error::InvalidArgument {
                message: format!("the call did not finish: {panicked}; this is a bug in ledger"),
            }),
        }
    }
}

/// A tool error: the stable code, the message and the path, as text and as
/// the `error` object of the structured content.
fn failed(e: &Error) -> CallToolResult {
    let text = format!("error[{}]: {e}", e.code());
    let mut result = CallToolResult::error(vec![ContentBlock::text(text)]);
    result.structured_content = Some(json!({
        "error": { "code": e.code(), "message": e.to_string(), "path": e.path() }
    }));
    result
}

/// Tells the client every [`PROGRESS_EVERY`] how long the call has run and
/// how many files the expansions of this process have answered meanwhile.
async fn tick(peer: Peer<RoleServer>, progress: ProgressToken, tool: &'static str) {
    let started = Instant::now();
    let answered_before = ledger_core::expand::progress().answered;
    let mut interval = tokio::time::interval(PROGRESS_EVERY);
    interval.tick().await;
    loop {
        interval.tick().await;
        let seconds = started.elapsed().as_secs();
        let answered = ledger_core::expand::progress().answered - answered_before;
        let mut note = ProgressNotificationParam::new(progress.clone(), seconds as f64);
        note.message = Some(format!(
            "{tool}: running for {seconds} s, {answered} files read or found unchanged"
        ));
        if peer.notify_progress(note).await.is_err() {
            return;
        }
    }
}
