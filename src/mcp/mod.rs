//! `ask-popup mcp`: the MCP server (`server`) and what its tool's result says (`result`).

pub mod result;
pub mod server;

pub use result::*;
