//! A small HTTP server on 127.0.0.1 for what the tests download as users do from the internet
//! (a release's files for Zellij, a package from an npm registry): each GET is answered from a
//! function of its path, whole (HTTP/1.1, one request per connection, any `Range` ignored, as a
//! server that sends the whole file does), and every path asked for is noted.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// What a path answers: its body, or None for a 404.
type Answer = dyn Fn(&str) -> Option<Vec<u8>> + Send + 'static;

pub struct LoopbackServer {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl LoopbackServer {
    /// Serves `answer` on a free loopback port until dropped.
    pub fn start(answer: impl Fn(&str) -> Option<Vec<u8>> + Send + 'static) -> LoopbackServer {
        let listener = TcpListener::bind(("127.0.0.1", 0)).expect("bind a loopback port");
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let port = listener.local_addr().expect("its address").port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let answer: Box<Answer> = Box::new(answer);
        let thread = {
            let (requests, stop) = (requests.clone(), stop.clone());
            thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            if let Some(path) = serve(stream, &answer) {
                                requests.lock().unwrap().push(path);
                            }
                        }
                        Err(_) => thread::sleep(Duration::from_millis(20)),
                    }
                }
            })
        };
        LoopbackServer {
            port,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every path asked for, in order.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for LoopbackServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Answers one request on `stream`; its path.
fn serve(stream: TcpStream, answer: &Answer) -> Option<String> {
    stream.set_nonblocking(false).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 || header.trim().is_empty() {
            break;
        }
    }
    let path = request_line.split_whitespace().nth(1)?.to_owned();
    let (status, body) = match answer(&path) {
        Some(bytes) => ("200 OK", bytes),
        None => ("404 Not Found", b"not found".to_vec()),
    };
    let kind = if body.starts_with(b"{") {
        "application/json"
    } else {
        "application/octet-stream"
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut stream = stream;
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(&body).ok()?;
    stream.flush().ok()?;
    Some(path)
}
