//! Asking from where no Zellij session is reachable: a container given the socket, another
//! machine over `ssh -R`. `wire` is what goes over the socket and whom each end trusts,
//! `socket` the socket on this machine, `server` is `ask-popup serve`, `client` the caller's
//! side.

pub mod client;
pub mod server;
pub mod socket;
pub mod wire;
