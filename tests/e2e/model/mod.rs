//! Scripted model servers: a real agent's model replaced by a small HTTP server on 127.0.0.1
//! that answers from a script (ask for one tool call, then end the turn) and records every
//! request, so a test can read the tool result the agent sent back. One file per model API.

#![allow(dead_code)] // Not every agent test uses every helper.

pub mod anthropic;
pub mod chat;
pub mod responses;

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Whether one of `requests` lists the `ask-user` skill (its name and description) among the
/// skills the agent offers its model, as `ask-popup setup` or the Pi package installed it.
pub fn lists_the_skill(requests: &[Recorded]) -> bool {
    let description = ask_popup::setup::SKILL
        .lines()
        .find_map(|l| l.strip_prefix("description: "))
        .unwrap_or("a description");
    // The first words, before any character an agent's format may escape.
    let words: String = description.chars().take(60).collect();
    requests.iter().any(|r| {
        let body = r.body.to_string();
        body.contains(ask_popup::setup::SKILL_NAME) && body.contains(&words)
    })
}

/// One request the agent made.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// The JSON body (`Null` when there was none or it was not JSON).
    pub body: Value,
}

/// What the script answers.
pub enum Response {
    /// A stream of server-sent events: `(event name, data)`.
    Events(Vec<(Option<String>, String)>),
    /// A JSON body.
    Json(Value),
    /// An empty answer with this status.
    Status(u16),
}

type Script = dyn Fn(&Recorded) -> Response + Send + Sync;

/// A model server running until dropped.
pub struct ModelServer {
    addr: SocketAddr,
    recorded: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
}

impl ModelServer {
    pub fn start(script: impl Fn(&Recorded) -> Response + Send + Sync + 'static) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a port on 127.0.0.1");
        let addr = listener.local_addr().expect("the server's address");
        let recorded = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let script: Arc<Script> = Arc::new(script);
        {
            let recorded = Arc::clone(&recorded);
            let stop = Arc::clone(&stop);
            thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let recorded = Arc::clone(&recorded);
                    let script = Arc::clone(&script);
                    thread::spawn(move || serve(stream, &recorded, &*script));
                }
            });
        }
        ModelServer {
            addr,
            recorded,
            stop,
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.recorded.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Waits until the recorded requests satisfy `done`; panics with them after `timeout`.
    pub fn wait_for<T>(
        &self,
        what: &str,
        timeout: Duration,
        done: impl Fn(&[Recorded]) -> Option<T>,
        context: impl Fn() -> String,
    ) -> T {
        let until = Instant::now() + timeout;
        loop {
            let requests = self.requests();
            if let Some(found) = done(&requests) {
                return found;
            }
            if Instant::now() > until {
                let paths: Vec<String> = requests
                    .iter()
                    .map(|r| format!("{} {}", r.method, r.path))
                    .collect();
                let seen: Vec<String> = requests.iter().map(summary).collect();
                panic!(
                    "the model server never saw {what}; requests: {paths:?}\nwhat they carried:\n{}\n{}",
                    seen.join("\n"),
                    context()
                );
            }
            thread::sleep(Duration::from_millis(100));
        }
    }
}

/// One request in a line or two: the tools it offered and its last message, cut short.
fn summary(request: &Recorded) -> String {
    let tools: Vec<&str> = request.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    let last = request.body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map(|m| m["content"].to_string())
        .unwrap_or_default();
    let last: String = last.chars().take(800).collect();
    format!("- tools {tools:?}; last message: {last}")
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
    }
}

/// Answers one connection: requests one after another while the client keeps it open.
fn serve(stream: TcpStream, recorded: &Mutex<Vec<Recorded>>, script: &Script) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(120)));
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    while let Some(request) = read_request(&mut reader) {
        if let Ok(mut all) = recorded.lock() {
            all.push(request.clone());
        }
        let response = script(&request);
        if write_response(&mut writer, response).is_err() {
            return;
        }
    }
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Recorded> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
            if name == "content-length" {
                length = value.parse().unwrap_or(0);
            } else if name == "transfer-encoding" && value.eq_ignore_ascii_case("chunked") {
                chunked = true;
            }
        }
    }
    let body = if chunked {
        read_chunked(reader)?
    } else {
        let mut body = vec![0; length];
        reader.read_exact(&mut body).ok()?;
        body
    };
    Some(Recorded {
        method,
        path,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}

fn read_chunked(reader: &mut BufReader<TcpStream>) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size).ok()?;
        let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
        let mut chunk = vec![0; size + 2];
        reader.read_exact(&mut chunk).ok()?;
        if size == 0 {
            return Some(body);
        }
        body.extend_from_slice(&chunk[..size]);
    }
}

fn write_response(writer: &mut TcpStream, response: Response) -> std::io::Result<()> {
    let (status, kind, body) = match response {
        Response::Events(events) => {
            let mut body = String::new();
            for (event, data) in events {
                if let Some(event) = event {
                    body.push_str(&format!("event: {event}\n"));
                }
                body.push_str(&format!("data: {data}\n\n"));
            }
            (200, "text/event-stream", body)
        }
        Response::Json(value) => (200, "application/json", value.to_string()),
        Response::Status(status) => (status, "application/json", String::new()),
    };
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nConnection: keep-alive\r\n\r\n",
        if status == 200 { "OK" } else { "Error" },
        body.len()
    );
    writer.write_all(head.as_bytes())?;
    writer.write_all(body.as_bytes())?;
    writer.flush()
}
