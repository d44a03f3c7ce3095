//! A real headless Chromium (Debian's `chromium`), driven through the DevTools protocol: Zellij's
//! web client, opened, logged in with a token, read, typed into and clicked as a person would.
//!
//! The page's terminal is xterm.js (`window.term`): its buffer is the screen as text, and keys
//! and clicks are real input events the page handles itself.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::{Message, WebSocket};

/// Where Debian's `chromium` package puts the browser; `ASK_POPUP_CHROMIUM` names another.
const CHROMIUM: &str = "/usr/bin/chromium";
/// How long the browser may take to start and to answer one command.
const START_TIMEOUT: Duration = Duration::from_secs(30);
const COMMAND_TIMEOUT: Duration = Duration::from_secs(20);
/// A phone's screen in CSS pixels (an iPhone 12 to 15).
const PHONE: (u32, u32) = (390, 844);

/// The browser binary, or a panic that says how to get it.
pub fn chromium_bin() -> PathBuf {
    let bin = std::env::var_os("ASK_POPUP_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(CHROMIUM));
    assert!(
        bin.exists(),
        "the web client's e2e tests need Chromium at {}: run `bash scripts/ensure-tools.sh` \
         (it installs Debian's `chromium` package)",
        bin.display()
    );
    bin
}

/// One headless Chromium with one page, and a DevTools connection to that page.
pub struct Browser {
    child: Child,
    socket: WebSocket<TcpStream>,
    next_id: u64,
}

impl Browser {
    /// Starts Chromium on `url` with a fresh profile in `profile` (a remembered login would
    /// skip the token form), offline but for the page's own host.
    pub fn open(url: &str, profile: &Path) -> Browser {
        std::fs::create_dir_all(profile).expect("create the browser profile dir");
        let mut command = Command::new(chromium_bin());
        command
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--enable-unsafe-swiftshader",
                "--disable-quic",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--disable-features=Translate,MediaRouter,OptimizationHints",
                "--remote-debugging-port=0",
                "--window-size=1280,800",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("could not start {}: {e}", chromium_bin().display()));
        // Chromium writes the port it listens on into the profile.
        let port_file = profile.join("DevToolsActivePort");
        let until = Instant::now() + START_TIMEOUT;
        let port = loop {
            let text = std::fs::read_to_string(&port_file).unwrap_or_default();
            if let Some(port) = text
                .lines()
                .next()
                .and_then(|l| l.trim().parse::<u16>().ok())
            {
                break port;
            }
            if Instant::now() >= until || matches!(child.try_wait(), Ok(Some(_))) {
                let _ = child.kill();
                panic!("Chromium did not start its DevTools server within {START_TIMEOUT:?}");
            }
            thread::sleep(Duration::from_millis(100));
        };
        let page = loop {
            if let Some(page) = page_socket_url(port) {
                break page;
            }
            if Instant::now() >= until {
                let _ = child.kill();
                panic!("Chromium's DevTools never listed a page");
            }
            thread::sleep(Duration::from_millis(100));
        };
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to DevTools");
        stream
            .set_read_timeout(Some(COMMAND_TIMEOUT))
            .expect("set a read timeout");
        let (socket, _) = tungstenite::client(page.as_str(), stream)
            .unwrap_or_else(|e| panic!("DevTools WebSocket {page}: {e}"));
        Browser {
            child,
            socket,
            next_id: 1,
        }
    }

    /// A phone: Chromium emulating a 390 × 844 screen with mobile metrics at scale 1 and
    /// touch, then on `url` (Zellij's web client turns its mobile UI on for it).
    pub fn open_phone(url: &str, profile: &Path) -> Browser {
        let mut browser = Browser::open("about:blank", profile);
        browser.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": PHONE.0, "height": PHONE.1, "deviceScaleFactor": 1, "mobile": true}),
        );
        browser.call(
            "Emulation.setTouchEmulationEnabled",
            json!({"enabled": true, "maxTouchPoints": 5}),
        );
        // The page keeps its focus as a phone's only page does (headless, it has none).
        browser.call(
            "Emulation.setFocusEmulationEnabled",
            json!({"enabled": true}),
        );
        browser.call("Page.navigate", json!({ "url": url }));
        browser
    }

    /// Taps the middle of the first cell on screen where `text` starts, with a finger.
    pub fn tap_text(&mut self, text: &str) {
        let (x, y) = self.cell_point(text);
        self.tap(x, y);
    }

    /// One tap at page point (`x`, `y`): a touch that starts and ends there.
    pub fn tap(&mut self, x: f64, y: f64) {
        self.call(
            "Input.dispatchTouchEvent",
            json!({"type": "touchStart", "touchPoints": [{"x": x, "y": y}]}),
        );
        self.call(
            "Input.dispatchTouchEvent",
            json!({"type": "touchEnd", "touchPoints": []}),
        );
    }

    /// Shows the mobile UI's key bar (ESC, TAB, CTRL, ALT, the arrows) as a person does: a
    /// tap with two fingers, which summons the phone's keyboard and the bar above it.
    /// The tap toggles the keyboard: when it was on already (not shown, the page not focused),
    /// the first tap turns it off, and the person taps again.
    pub fn show_key_bar(&mut self) {
        let shown = "window.__zjMobileUi.getState().kbdVisible === true";
        let two = json!([{"x": 150, "y": 300, "id": 0}, {"x": 220, "y": 300, "id": 1}]);
        for _ in 0..3 {
            self.call(
                "Input.dispatchTouchEvent",
                json!({"type": "touchStart", "touchPoints": two}),
            );
            self.call(
                "Input.dispatchTouchEvent",
                json!({"type": "touchEnd", "touchPoints": []}),
            );
            thread::sleep(Duration::from_millis(200));
            if self.eval(shown) == true {
                return;
            }
        }
        panic!(
            "a two-finger tap never showed the key bar (keyboard on: {})",
            self.eval("String(window.__zjSoftKbdEnabled)")
        );
    }

    /// Taps the mobile UI's key bar button labelled `label` (`ESC`, `TAB`, `↑`, `↓`, `←`,
    /// `→`), once the bar shows.
    pub fn tap_key(&mut self, label: &str) {
        let label_js = serde_json::to_string(label).expect("a label is a string");
        let until = Instant::now() + COMMAND_TIMEOUT;
        let point = loop {
            let point = self.eval(&format!(
                "(() => {{ const b = [...document.querySelectorAll('button[data-cell]')] \
                 .find(b => b.textContent === {label_js}); if (!b) return null; \
                 const r = b.getBoundingClientRect(); \
                 if (r.width === 0 || !b.parentElement.classList.contains('zj-visible')) return null; \
                 return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
            ));
            if !point.is_null() {
                break point;
            }
            assert!(
                Instant::now() < until,
                "the key bar never showed {label}:\n{}",
                self.page_text()
            );
            thread::sleep(Duration::from_millis(100));
        };
        let x = point.get(0).and_then(Value::as_f64).unwrap_or_default();
        let y = point.get(1).and_then(Value::as_f64).unwrap_or_default();
        self.tap(x, y);
    }

    /// The mobile UI's state (`window.__zjMobileUi.getState()`), or null without it.
    pub fn mobile_state(&mut self) -> Value {
        self.eval("window.__zjMobileUi ? JSON.parse(JSON.stringify(window.__zjMobileUi.getState())) : null")
    }

    /// Sends one DevTools command and returns its result (events in between are skipped).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"id": id, "method": method, "params": params}).to_string();
        self.socket
            .send(Message::text(message))
            .unwrap_or_else(|e| panic!("DevTools {method}: {e}"));
        let until = Instant::now() + COMMAND_TIMEOUT;
        loop {
            let message = self
                .socket
                .read()
                .unwrap_or_else(|e| panic!("DevTools {method}: no answer ({e})"));
            if let Message::Text(text) = message {
                let value: Value = serde_json::from_str(text.as_str()).unwrap_or_default();
                if value.get("id").and_then(Value::as_u64) == Some(id) {
                    if let Some(error) = value.get("error") {
                        panic!("DevTools {method} failed: {error}");
                    }
                    return value.get("result").cloned().unwrap_or_default();
                }
            }
            assert!(Instant::now() < until, "DevTools {method}: no answer");
        }
    }

    /// The value of a JavaScript expression in the page (awaited if it is a promise).
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        if let Some(exception) = result.get("exceptionDetails") {
            panic!("the page threw on `{expression}`: {exception}");
        }
        result
            .get("result")
            .and_then(|r| r.get("value"))
            .cloned()
            .unwrap_or_default()
    }

    /// The page's text outside the terminal (the token form, an error page).
    pub fn page_text(&mut self) -> String {
        self.eval("document.body ? document.body.innerText : ''")
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// Logs in on the token form (`#token`, `#submit`) when the page shows it.
    pub fn log_in(&mut self, token: &str, until: Instant) {
        let form = loop {
            let state = self.eval(
                "document.querySelector('#token') ? 'form' : (window.term ? 'terminal' : 'loading')",
            );
            match state.as_str() {
                Some("form") => break true,
                Some("terminal") => break false,
                _ if Instant::now() >= until => {
                    panic!(
                        "the web client showed neither its token form nor a terminal:\n{}",
                        self.page_text()
                    )
                }
                _ => thread::sleep(Duration::from_millis(100)),
            }
        };
        if form {
            let token = serde_json::to_string(token).expect("a token is a string");
            self.eval(&format!(
                "document.querySelector('#token').value = {token}; \
                 document.querySelector('#submit').click(); true"
            ));
        }
    }

    /// What the page's terminal shows, one line per row (empty before the terminal exists).
    pub fn screen(&mut self) -> String {
        self.eval(
            "(() => { const t = window.term; if (!t) return ''; const b = t.buffer.active; \
             const rows = []; for (let i = 0; i < t.rows; i++) { \
             const line = b.getLine(b.viewportY + i); rows.push(line ? line.translateToString(true) : ''); } \
             return rows.join('\\n'); })()",
        )
        .as_str()
        .unwrap_or_default()
        .to_owned()
    }

    /// Waits until the terminal's screen satisfies `pred`; panics with the last screen at
    /// `until`.
    pub fn wait_for_screen(
        &mut self,
        what: &str,
        until: Instant,
        pred: impl Fn(&str) -> bool,
    ) -> String {
        loop {
            let screen = self.screen();
            if pred(&screen) {
                return screen;
            }
            if Instant::now() >= until {
                panic!(
                    "the browser's terminal never showed {what}; last screen:\n{screen}\npage:\n{}",
                    self.page_text()
                );
            }
            thread::sleep(Duration::from_millis(100));
        }
    }

    /// Presses a key in the terminal: a DOM key name (`Enter`, `ArrowDown`, `Escape`, `Tab`)
    /// or one printable character.
    pub fn press(&mut self, key: &str) {
        self.eval("window.term && window.term.focus(); true");
        let (code, vk, text) = match key {
            "Enter" => ("Enter", 13, "\r"),
            "Escape" => ("Escape", 27, ""),
            "Tab" => ("Tab", 9, "\t"),
            "Backspace" => ("Backspace", 8, ""),
            "ArrowUp" => ("ArrowUp", 38, ""),
            "ArrowDown" => ("ArrowDown", 40, ""),
            "ArrowLeft" => ("ArrowLeft", 37, ""),
            "ArrowRight" => ("ArrowRight", 39, ""),
            " " => ("Space", 32, " "),
            _ => ("", 0, key),
        };
        let upper = key
            .chars()
            .next()
            .map_or(0, |c| c.to_ascii_uppercase() as i64);
        let vk = if vk == 0 { upper } else { vk };
        let mut down = json!({
            "type": if text.is_empty() { "rawKeyDown" } else { "keyDown" },
            "key": key,
            "windowsVirtualKeyCode": vk,
            "nativeVirtualKeyCode": vk,
        });
        if !code.is_empty() {
            down["code"] = json!(code);
        }
        if !text.is_empty() {
            down["text"] = json!(text);
            down["unmodifiedText"] = json!(text);
        }
        self.call("Input.dispatchKeyEvent", down);
        let mut up = json!({"type": "keyUp", "key": key, "windowsVirtualKeyCode": vk});
        if !code.is_empty() {
            up["code"] = json!(code);
        }
        self.call("Input.dispatchKeyEvent", up);
    }

    /// Clicks the middle of the first cell on screen where `text` starts (row and column of the
    /// terminal's grid, turned into the page's pixels).
    pub fn click_text(&mut self, text: &str) {
        let (x, y) = self.cell_point(text);
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            );
        }
    }

    /// The page point in the middle of the first cell on screen where `text` starts.
    fn cell_point(&mut self, text: &str) -> (f64, f64) {
        let screen = self.screen();
        let (row, col) = screen
            .lines()
            .enumerate()
            .find_map(|(row, line)| {
                line.find(text)
                    .map(|byte| (row, line[..byte].chars().count()))
            })
            .unwrap_or_else(|| panic!("`{text}` is not on the browser's screen:\n{screen}"));
        let point = self.eval(&format!(
            "(() => {{ const t = window.term; const r = t.element.querySelector('.xterm-screen').getBoundingClientRect(); \
             const w = r.width / t.cols, h = r.height / t.rows; \
             return [r.left + ({col} + 0.5) * w, r.top + ({row} + 0.5) * h]; }})()"
        ));
        let x = point.get(0).and_then(Value::as_f64).unwrap_or_default();
        let y = point.get(1).and_then(Value::as_f64).unwrap_or_default();
        (x, y)
    }

    /// A PNG of the page as it shows now.
    pub fn screenshot(&mut self) -> Vec<u8> {
        use base64::Engine as _;
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let data = shot.get("data").and_then(Value::as_str).unwrap_or_default();
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .expect("DevTools sends a screenshot as base64")
    }

    /// Closes the page: the web client leaves the session as a closed tab does.
    pub fn close(mut self) {
        self.quit();
    }

    fn quit(&mut self) {
        let _ = self.socket.close(None);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.quit();
    }
}

/// The DevTools WebSocket URL of the browser's first page, once it lists one.
fn page_socket_url(port: u16) -> Option<String> {
    use std::io::{Read, Write};
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(COMMAND_TIMEOUT)).ok()?;
    stream
        .write_all(b"GET /json/list HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .ok()?;
    // Read up to the end of the body its Content-Length gives (the connection may stay open).
    let mut response = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).ok()?;
        response.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&response);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head.lines().find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse::<usize>().ok())
                    .flatten()
            });
            if n == 0 || length.is_some_and(|length| body.len() >= length) {
                let targets: Value = serde_json::from_str(body).ok()?;
                return targets.as_array()?.iter().find_map(|t| {
                    (t.get("type")?.as_str()? == "page")
                        .then(|| t.get("webSocketDebuggerUrl")?.as_str().map(str::to_owned))
                        .flatten()
                });
            }
        }
        if n == 0 {
            return None;
        }
    }
}
