#!/usr/bin/env python3
"""End-to-end latency of ask-popup in a real Zellij 0.45.1, next to a floor plugin.

Run through `bash benches/e2e_latency.sh`, which builds both plugins and the worst-case payload
and passes their paths here. Python 3 standard library only.

The world: one isolated Zellij (its own HOME, XDG dirs, socket dir and TMPDIR under --root), a
config with the aliases `ask-popup` and `floor`, their permissions pre-granted in
permissions.kdl, and a client attached inside a detached tmux session of 160x45 cells.

How the screen is read: one tmux control-mode client (`tmux -C attach -f ignore-size`) stays
connected, so reading the screen (`capture-pane`) and pressing keys (`send-keys`) cost a line
on a pipe instead of a process. tmux announces every write of the Zellij client to the terminal
with a `%output` notification; after each one the screen is captured, and a frame counts from
the arrival of the last `%output` before the capture that first shows it.

Timings, per plugin and payload (small; one: 1 question, 4 options with an 8 KiB markdown
preview each; worst: 4 questions x 4 options with 8 KiB previews on the single-select ones):
  (a) `zellij pipe` spawned -> the first frame showing the request (a nonce in the question),
  (b) a key (`Down`) sent to the focused popup -> the frame showing its effect,
  (c) the final `Enter` sent -> the reply line on the caller's stdout.
The floor replies as many bytes as ask-popup did to the same payload (its `reply_bytes`
argument, from ask-popup's latest reply of that payload; ask-popup goes first in the first run).

The command's own cost, per payload: `ask-popup ask` (the host command, given the payload on
stdin) against a bare `zellij pipe` with the same payload and arguments, both asking ask-popup
and answered with the same keys once they count: from the call to the reply on the caller's
stdout (and, of that, Enter -> reply).

Then many agents: 32 worst-case requests pending at once, key -> frame with 32 pending against
1 pending, and every caller's envelope checked for its own requestId and answer.
"""

import argparse
import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections import deque

COLS, ROWS = 160, 45
SESSION = "apb"
TMUX_SESSION = "apb"
MISSED = "There is no active session!"
# A screen capture also runs this often when tmux reports no output (a safety net only).
FALLBACK_POLL = 0.05
COMMAND_TIMEOUT = 20.0

OURS, FLOOR = "ask-popup", "floor"
PERMISSIONS = {
    OURS: [
        "ReadCliPipes",
        "ChangeApplicationState",
        "MessageAndLaunchOtherPlugins",
        "ReadApplicationState",
    ],
    FLOOR: ["ReadCliPipes", "ChangeApplicationState"],
}
FLOOR_REPLY = '{"content":[{"type":"text","text":"floor"}],"details":{"cancelled":false'


class BenchError(Exception):
    pass


class LostCall(BenchError):
    """A `zellij pipe` exited 0 without a reply before its request was answered. Zellij 0.45.1
    does this now and then to a CLI started right after another one exited (the server seems to
    send the old client's late `Exit` to the new client that got its reused client id). The
    request itself still arrives, so the run is finished and then done again."""


def now():
    return time.monotonic()


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Pipe:
    """One `zellij pipe` call (or, given `argv` and `env`, another command that asks, such as
    `ask-popup ask`): the payload on its stdin (one line, then EOF), its stdout read by the
    event loop so the reply's arrival is timed there."""

    def __init__(self, world, plugin, args, payload, argv=None, env=None):
        self.world = world
        self.argv = argv or world.zellij_argv(
            "pipe", "--plugin", plugin, "--name", "ask", "--args", args
        )
        self.env = env or world.env
        self.payload = (payload + "\n").encode()
        self.retries = 0
        self.spawn()

    def spawn(self):
        self.out = b""
        self.t_reply = None
        self.t_exit = None
        self.err = None
        self.eof = False
        self.t0 = now()
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
        )
        self.fd = self.proc.stdout.fileno()
        os.set_blocking(self.fd, False)
        # A thread writes: 100 KiB do not fit a pipe buffer, and the CLI reads at its pace.
        threading.Thread(target=self._feed, args=(self.proc,), daemon=True).start()
        if self not in self.world.pipes:
            self.world.pipes.append(self)

    def _feed(self, proc):
        try:
            proc.stdin.write(self.payload)
            proc.stdin.close()
        except OSError:
            pass

    def read(self, t):
        try:
            data = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return
        if not data:
            self.eof = True
            return
        self.out += data
        if self.t_reply is None and b"\n" in self.out:
            self.t_reply = t

    def exited(self):
        if self.proc.poll() is None:
            return False
        if self.t_exit is None:
            self.t_exit = now()
        return True

    def stderr(self):
        """What the CLI said on stderr (once it exited)."""
        if self.err is None:
            self.err = self.proc.stderr.read().decode(errors="replace").strip()
        return self.err

    def missed_session(self):
        """Whether the CLI exited having sent nothing because it missed the session (Zellij
        0.45.1's CLI says so now and then for a busy live session)."""
        if not self.exited() or self.out:
            return False
        return self.proc.returncode == 1 and self.stderr() == MISSED

    def retry_if_missed(self):
        if self.missed_session():
            self.retries += 1
            self.world.missed_retries += 1
            time.sleep(0.1)
            self.spawn()
            return True
        return False

    def retry_if_lost(self):
        """Asks again (same id: the plugin replaces the orphaned request) if Zellij made the CLI
        exit 0 without a reply while its request was pending (see `LostCall`)."""
        if self.exited() and self.eof and self.t_reply is None and not self.out:
            if self.proc.returncode == 0:
                self.retries += 1
                self.world.lost_calls += 1
                self.spawn()
                return True
        return False

    def reply(self):
        line = self.out.split(b"\n", 1)[0].decode(errors="replace")
        return line

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


class Control:
    """A tmux control-mode client. Commands are lines on its stdin, their output comes back in
    `%begin`/`%end` blocks; `%output` notifications say the terminal was written to."""

    def __init__(self, world, argv):
        self.world = world
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=world.env,
        )
        self.fd = self.proc.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.buf = b""
        self.block = None
        self.blocks = deque()
        self.last_output = 0.0
        self.capture_rtts = []
        # How often the screen did not settle before a key press.
        self.noisy = 0
        self.sync_n = 0

    def pump(self, timeout):
        """Reads what tmux and the pipes have said, waiting up to `timeout` for something.
        Whether anything came."""
        pipes = [p for p in self.world.pipes if not p.eof]
        fds = [self.fd] + [p.fd for p in pipes]
        ready, _, _ = select.select(fds, [], [], max(0.0, timeout))
        if not ready:
            return False
        t = now()
        for p in pipes:
            if p.fd in ready:
                p.read(t)
                if p.eof:
                    p.exited()
        if self.fd in ready:
            try:
                data = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                data = None
            if data == b"":
                raise BenchError("the tmux control client exited")
            if data:
                self.buf += data
                *lines, self.buf = self.buf.split(b"\n")
                for line in lines:
                    self._line(line, t)
        return True

    def drain(self):
        while self.pump(0):
            pass

    def _line(self, line, t):
        if self.block is not None:
            if line.startswith(b"%end ") or line.startswith(b"%error "):
                # Flags 1: the output of a command this client sent (not, say, the attach).
                if line.rsplit(b" ", 1)[-1] == b"1":
                    self.blocks.append((line.startswith(b"%end "), self.block))
                self.block = None
            else:
                self.block.append(line)
        elif line.startswith(b"%begin "):
            self.block = []
        elif line.startswith(b"%output "):
            self.last_output = t
        elif line.startswith(b"%exit"):
            raise BenchError(f"the tmux control client was told to exit: {line!r}")

    def command(self, cmd, deadline=None):
        """Runs a tmux command; its output lines."""
        deadline = deadline or now() + COMMAND_TIMEOUT
        self.proc.stdin.write(cmd.encode() + b"\n")
        self.proc.stdin.flush()
        while not self.blocks:
            if now() > deadline:
                raise BenchError(f"tmux did not answer {cmd!r}")
            self.pump(deadline - now())
        ok, lines = self.blocks.popleft()
        if not ok:
            raise BenchError(f"tmux {cmd!r} failed: {lines!r}")
        return lines

    def sync(self):
        """Skips the blocks of commands before this (the attach's own)."""
        self.sync_n += 1
        marker = f"sync-{self.sync_n}".encode()
        self.proc.stdin.write(f"display-message -p {marker.decode()}\n".encode())
        self.proc.stdin.flush()
        deadline = now() + COMMAND_TIMEOUT
        while True:
            while not self.blocks:
                if now() > deadline:
                    raise BenchError("tmux control client did not answer")
                self.pump(deadline - now())
            _, lines = self.blocks.popleft()
            if lines == [marker]:
                return

    def capture(self):
        t = now()
        lines = self.command(f"capture-pane -p -t {TMUX_SESSION}")
        self.capture_rtts.append(now() - t)
        return "\n".join(line.decode(errors="replace") for line in lines)

    def send_keys(self, *keys):
        """Presses keys in the terminal (the focused pane gets them); when they were sent."""
        t = now()
        self.command(f"send-keys -t {TMUX_SESSION} " + " ".join(keys))
        return t

    def wait_screen(self, what, pred, since, timeout, tick=None):
        """Waits until the screen satisfies `pred`; returns (when it first did, the screen).

        "When" is the arrival of the last `%output` before the capture that matched (not
        before `since`); `tick` runs every round and may raise.
        """
        deadline = now() + timeout
        sent = 0.0
        screen = ""
        while True:
            self.drain()
            if tick:
                tick()
            changed = self.last_output > sent
            if changed or now() - sent >= FALLBACK_POLL:
                mark = self.last_output
                sent = now()
                screen = self.capture()
                if pred(screen):
                    return (max(mark, since) if changed else sent), screen
            if now() > deadline:
                raise BenchError(
                    f"the screen never showed {what} within {timeout:.0f} s; last screen:\n{screen}"
                )
            self.pump(min(FALLBACK_POLL, max(0.0, deadline - now())))

    def quiet(self, period=0.05, timeout=3.0):
        """Waits until the terminal got no output for `period` (a user reads before pressing a
        key; and a key pressed while Zellij still repaints would measure the repaint)."""
        deadline = now() + timeout
        while True:
            self.drain()
            idle = now() - self.last_output
            if idle >= period:
                return
            if now() > deadline:
                self.noisy += 1
                return
            self.pump(period - idle)

    def wait_reply(self, pipe, timeout):
        """Waits for the first line on `pipe`'s stdout; when it came."""
        started = now()
        deadline = started + timeout
        while pipe.t_reply is None:
            if pipe.eof and pipe.exited():
                rc = pipe.proc.returncode
                what = (
                    f"`zellij pipe` exited {rc} without a reply line "
                    f"{pipe.t_exit - pipe.t0:.3f} s after it started (the wait began "
                    f"{started - pipe.t0:.3f} s after): stdout {pipe.out!r}, stderr {pipe.stderr()!r}"
                )
                raise (LostCall if rc == 0 and not pipe.out else BenchError)(what)
            if now() > deadline:
                raise BenchError(f"no reply within {timeout:.0f} s (stdout so far {pipe.out!r})")
            self.pump(min(0.5, max(0.0, deadline - now())))
        return pipe.t_reply

    def wait_exit(self, pipe, timeout):
        deadline = now() + timeout
        while not (pipe.eof and pipe.exited()):
            if now() > deadline:
                raise BenchError(f"`zellij pipe` did not exit within {timeout:.0f} s after its reply")
            self.pump(0.02)
        self.world.pipes.remove(pipe)

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)


class World:
    """One isolated Zellij session with a client attached in tmux."""

    def __init__(self, root, zellij, tmux, plugins):
        self.root = root
        self.zellij = zellij
        self.tmux = tmux
        self.plugins = plugins  # alias -> absolute wasm path
        self.pipes = []
        self.missed_retries = 0
        self.lost_calls = 0
        self.ctl = None
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("ZELLIJ", "ZELLIJ_SESSION_NAME", "ZELLIJ_PANE_ID", "TMUX", "TMUX_PANE")
        }
        for d in ("home", "config", "cache", "data", "s", "tmp"):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        env.update(
            HOME=os.path.join(root, "home"),
            XDG_CONFIG_HOME=os.path.join(root, "config"),
            XDG_CACHE_HOME=os.path.join(root, "cache"),
            XDG_DATA_HOME=os.path.join(root, "data"),
            ZELLIJ_SOCKET_DIR=os.path.join(root, "s"),
            TMPDIR=os.path.join(root, "tmp"),
            TMUX_TMPDIR=root,
            SHELL="/bin/sh",
        )
        self.env = env
        self.config = os.path.join(root, "config.kdl")

    def zellij_argv(self, *args):
        return [self.zellij, "-s", SESSION, *args]

    def tmux_argv(self, *args):
        return [self.tmux, "-u", "-L", TMUX_SESSION, "-f", "/dev/null", *args]

    def run(self, argv, timeout=COMMAND_TIMEOUT):
        return subprocess.run(
            argv,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
        )

    def action(self, *args):
        for _ in range(3):
            out = self.run(self.zellij_argv("action", *args))
            if not (out.returncode == 1 and out.stderr.decode().strip() == MISSED):
                return out
            time.sleep(0.1)
        return out

    def start(self):
        aliases = "".join(
            f'    {alias} location="file:{path}" {{\n    }}\n'
            for alias, path in self.plugins.items()
        )
        with open(self.config, "w") as f:
            f.write(
                "show_startup_tips false\n"
                "show_release_notes false\n"
                "session_serialization false\n"
                f"plugins {{\n{aliases}}}\n"
            )
        cache = os.path.join(self.root, "cache", "zellij")
        os.makedirs(cache, exist_ok=True)
        with open(os.path.join(cache, "permissions.kdl"), "w") as f:
            for alias, path in self.plugins.items():
                lines = "".join(f"    {p}\n" for p in PERMISSIONS[alias])
                f.write(f"{json.dumps(path)} {{\n{lines}}}\n")
        line = self.client_line("-s", SESSION)
        out = self.run(
            self.tmux_argv(
                "new-session", "-d", "-s", TMUX_SESSION, "-x", str(COLS), "-y", str(ROWS), line
            )
        )
        if out.returncode != 0:
            raise BenchError(f"tmux new-session failed: {out.stderr.decode()}")
        self.ctl = Control(self, self.tmux_argv("-C", "attach", "-t", TMUX_SESSION, "-f", "ignore-size"))
        self.ctl.sync()
        # The tab bar first: a CLI call before the first client initialised the session can
        # crash Zellij 0.45.1's server.
        self.ctl.wait_screen(
            "the tab bar", lambda s: f"Zellij ({SESSION})" in s, now(), 60
        )
        deadline = now() + 60
        while True:
            out = self.action("list-panes", "--json", "--all")
            try:
                if out.returncode == 0 and json.loads(out.stdout):
                    break
            except ValueError:
                pass
            if now() > deadline:
                raise BenchError(f"the session did not answer list-panes: {out!r}")
            time.sleep(0.2)
        size = self.ctl.command(f"display-message -p -t {TMUX_SESSION} '#{{window_width}}x#{{window_height}}'")
        if size != [f"{COLS}x{ROWS}".encode()]:
            raise BenchError(f"the terminal is {size!r}, not {COLS}x{ROWS}")

    def client_line(self, *args):
        """The shell line a tmux window runs for a Zellij client of this world: `zellij
        --config … ARGS` in the world's environment."""
        quote = lambda s: "'" + s.replace("'", "'\\''") + "'"
        names = ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
                 "ZELLIJ_SOCKET_DIR", "TMPDIR", "TMUX_TMPDIR", "SHELL")
        line = "exec env " + " ".join(f"{k}={quote(self.env[k])}" for k in names)
        line += f" {quote(self.zellij)} --config {quote(self.config)} "
        return line + " ".join(quote(a) for a in args)

    def attach_second_client(self, tries=3):
        """A second client attached to the session, in a tmux session of its own on the same
        tmux server; waits until Zellij lists two clients. A client that never shows up (now
        and then one does not) is started again, up to `tries` times."""
        line = self.client_line("attach", SESSION)
        for attempt in range(1, tries + 1):
            out = self.run(
                self.tmux_argv(
                    "new-session", "-d", "-s", TMUX_SESSION + "2", "-x", str(COLS), "-y", str(ROWS),
                    line
                )
            )
            if out.returncode != 0:
                raise BenchError(f"tmux new-session (second client) failed: {out.stderr.decode()}")
            deadline = now() + 20
            while now() < deadline:
                out = self.action("list-clients")
                rows = [l for l in out.stdout.decode(errors="replace").splitlines()[1:] if l.strip()]
                if out.returncode == 0 and len(rows) >= 2:
                    return
                time.sleep(0.1)
            log(f"  (the second client did not attach in 20 s, try {attempt} of {tries})")
            self.run(self.tmux_argv("kill-session", "-t", TMUX_SESSION + "2"))
        raise BenchError(f"the second client never attached: {out!r}")

    def log_tail(self, lines=30):
        text = []
        tmp = os.path.join(self.root, "tmp")
        for entry in sorted(os.listdir(tmp)) if os.path.isdir(tmp) else []:
            path = os.path.join(tmp, entry, "zellij-log", "zellij.log")
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    text.extend(f.read().splitlines())
        return "\n".join(text[-lines:])

    def close(self):
        for p in list(self.pipes):
            p.kill()
        if self.ctl:
            try:
                self.ctl.close()
            except Exception:
                pass
        try:
            out = self.run(self.zellij_argv("kill-session", SESSION), timeout=10)
            ok = out.returncode == 0
        except subprocess.TimeoutExpired:
            ok = False
        if not ok:
            try:
                self.run([self.zellij, "kill-all-sessions", "--yes"], timeout=10)
            except subprocess.TimeoutExpired:
                pass
        try:
            self.run(self.tmux_argv("kill-server"), timeout=10)
        except subprocess.TimeoutExpired:
            pass
        # The server exits once its session is gone: wait for its socket to go.
        sock = os.path.join(self.root, "s", "contract_version_1", SESSION)
        deadline = now() + 10
        while os.path.exists(sock) and now() < deadline:
            time.sleep(0.1)


# ---------------------------------------------------------------------------------------------
# Payloads

SMALL = {
    "questions": [
        {
            "question": "NONCE Which database should the new service use?",
            "header": "Database",
            "options": [
                {"label": "Postgres", "description": "Concurrent writes, mature tooling."},
                {"label": "SQLite", "description": "One file, no setup."},
            ],
        }
    ]
}


def template(questionnaire):
    """One JSON line with `NONCE` at the start of the first question, which is the first key so
    the floor's 40 characters show it too."""
    q = json.loads(json.dumps(questionnaire))
    first = q["questions"][0]
    text = first.pop("question")
    if not text.startswith("NONCE"):
        text = "NONCE " + text
    q["questions"][0] = {"question": text, **first}
    return json.dumps(q, ensure_ascii=False, separators=(",", ":"))


class Nonces:
    def __init__(self):
        self.n = 0

    def next(self):
        self.n += 1
        return f"[n{self.n:04d}]"


# ---------------------------------------------------------------------------------------------
# Scenarios


EXPECTED = {"small": "SQLite", "one": "Design 1", "worst": "Design 1 設計"}


def answer_keys(ctl, kind, nonce):
    """After `Down` on the first question: what picks the second option and leaves the Submit
    row focused (on a questionnaire of several questions), so that `Enter` answers."""
    if kind == "worst":
        # Q1: pick `Design 1` (on to Q2), then back past Q1 to the Submit tab.
        ctl.send_keys("Enter")
        ctl.send_keys("Left")
        ctl.send_keys("Left")
        ctl.wait_screen(
            f"{nonce}'s Submit tab",
            lambda s: "Review your answers" in s and "❯ 1. Submit answers" in s,
            now(),
            30,
        )


def one_request(world, plugin, kind, payload_template, nonce, reply_bytes):
    """One request from the call to the reply; the three timings in seconds, and the reply's
    size in bytes (its newline included). The floor replies `reply_bytes[kind]` bytes."""
    ctl = world.ctl
    req_id = nonce.strip("[]")
    extra = f",reply_bytes={reply_bytes.get(kind, 0)}" if plugin == FLOOR else ""
    pipe, a = first_frame(world, plugin, payload_template, nonce, extra)
    if plugin == OURS:
        moved = lambda s: nonce in s and "❯ 2." in s
    else:
        moved = lambda s: nonce in s and "FLOOR keys=1" in s

    if plugin == OURS:
        wait_keys_count(ctl)
    ctl.quiet()
    t_key = ctl.send_keys("Down")
    t_moved, _ = ctl.wait_screen(f"{nonce} after Down", moved, t_key, 30)
    b = t_moved - t_key

    if plugin == OURS:
        answer_keys(ctl, kind, nonce)
    ctl.quiet()
    t_enter = ctl.send_keys("Enter")
    try:
        t_reply = ctl.wait_reply(pipe, 30)
    except LostCall:
        # The plugin answered into the void and hid; leave a quiet screen for the next run.
        ctl.wait_exit(pipe, 15)
        ctl.wait_screen(f"{nonce} gone", lambda s: nonce not in s, now(), 15)
        raise
    c = t_reply - t_enter

    reply = pipe.reply()
    size = len(reply.encode()) + 1
    if plugin == OURS:
        check_envelope(reply, req_id, EXPECTED[kind])
    elif not reply.startswith(FLOOR_REPLY) or size != max(reply_bytes.get(kind, 0), size):
        raise BenchError(
            f"the floor replied {size} bytes, not {reply_bytes.get(kind)}: {reply[:200]!r}"
        )
    ctl.wait_exit(pipe, 15)
    # The popup hides; the next request starts from a quiet screen.
    ctl.wait_screen(f"{nonce} gone", lambda s: nonce not in s, now(), 15)
    return a, b, c, size


def asked_by(world, how, kind, payload_template, nonce, command):
    """One request to ask-popup from the call to the reply, asked by `how`: "pipe" (a bare
    `zellij pipe`) or "command" (`ask-popup ask`, run as an agent runs it inside the session);
    both answered with the same keys. (call -> reply, Enter -> reply) in seconds."""
    ctl = world.ctl
    payload = payload_template.replace("NONCE", nonce, 1)
    req_id = nonce.strip("[]")
    ctl.quiet()
    if how == "command":
        env = dict(world.env, ZELLIJ="0", ZELLIJ_SESSION_NAME=SESSION)
        env["PATH"] = os.path.dirname(world.zellij) + os.pathsep + env.get("PATH", "")
        argv = [command, "ask", "--id", req_id, "--agent", "bench"]
        pipe = Pipe(world, OURS, None, payload, argv=argv, env=env)
    else:
        # The arguments the command sends.
        pipe = Pipe(world, OURS, f"pane_id=,agent=bench,id={req_id}", payload)

    def tick():
        if how == "pipe" and pipe.retry_if_missed():
            log(f"  ({nonce}: the CLI missed the session, sent again)")

    ctl.wait_screen(f"request {nonce}", lambda s: nonce in s, pipe.t0, 60, tick)
    wait_keys_count(ctl)
    ctl.quiet()
    t_key = ctl.send_keys("Down")
    ctl.wait_screen(f"{nonce} after Down", lambda s: nonce in s and "❯ 2." in s, t_key, 30)
    answer_keys(ctl, kind, nonce)
    ctl.quiet()
    t_enter = ctl.send_keys("Enter")
    try:
        t_reply = ctl.wait_reply(pipe, 30)
    except LostCall:
        ctl.wait_exit(pipe, 15)
        ctl.wait_screen(f"{nonce} gone", lambda s: nonce not in s, now(), 15)
        raise
    check_envelope(pipe.reply(), req_id, EXPECTED[kind])
    ctl.wait_exit(pipe, 15)
    ctl.wait_screen(f"{nonce} gone", lambda s: nonce not in s, now(), 15)
    return t_reply - pipe.t0, t_reply - t_enter


def first_frame(world, plugin, payload_template, nonce, extra_args=""):
    """A `zellij pipe` asking `plugin` the payload with `nonce` in it (`extra_args` added to its
    arguments), sent once the terminal is quiet: the pipe, and how long until the first frame
    showing the request, in seconds."""
    ctl = world.ctl
    payload = payload_template.replace("NONCE", nonce, 1)
    ctl.quiet()
    pipe = Pipe(world, plugin, f"id={nonce.strip('[]')},agent=bench{extra_args}", payload)

    def tick():
        if pipe.retry_if_missed():
            log(f"  ({nonce}: the CLI missed the session, sent again)")

    if plugin == OURS:
        shown = lambda s: nonce in s
    else:
        shown = lambda s: nonce in s and "FLOOR keys=0" in s
    t_frame, _ = ctl.wait_screen(f"request {nonce}", shown, pipe.t0, 60, tick)
    return pipe, t_frame - pipe.t0


def cold_start(args, plugins, clients, nonces, run):
    """The first question of a fresh session (its plugin not loaded yet) with `clients`
    attached: `zellij pipe` spawned -> the first frame showing it on the first client's
    terminal, for ask-popup and the floor, in the order given. Each in a session of its own
    under a fresh folder (nothing cached from an earlier run), torn down after. Seconds, by
    plugin."""
    times = {}
    for plugin in plugins:
        world = World(os.path.join(args.root, f"cold{run}-{plugin}"), args.zellij, args.tmux,
                      {OURS: os.path.abspath(args.ours), FLOOR: os.path.abspath(args.floor)})
        try:
            world.start()
            if clients == 2:
                world.attach_second_client()
            _, times[plugin] = first_frame(world, plugin, template(SMALL), nonces.next())
        except BenchError:
            log(f"--- the Zellij log (tail) ---\n{world.log_tail()}\n---")
            raise
        finally:
            world.close()
    return times


def settling(screen):
    """Whether the popup's footer says `…`: the question just appeared and keys do not count."""
    for line in screen.splitlines():
        for cell in line.split("│"):
            cell = cell.strip()
            if cell == "…" or cell.endswith("· …"):
                return True
    return False


def wait_keys_count(ctl):
    """Keys count 400 ms after a question first shows (its footer says `…` until then). The
    terminal is let settle first: a capture taken mid-repaint can show the new question above
    the previous one's footer."""
    ctl.quiet()
    ctl.wait_screen("keys to count", lambda s: not settling(s), now(), 10)


def check_envelope(reply, req_id, answer):
    try:
        env = json.loads(reply)
    except ValueError:
        raise BenchError(f"{req_id}: the reply is not JSON: {reply!r}")
    details = env.get("details", {})
    got = [a.get("answer") for a in details.get("answers", [])]
    if details.get("requestId") != req_id or details.get("cancelled") or got[:1] != [answer]:
        raise BenchError(
            f"{req_id}: expected requestId {req_id!r} and first answer {answer!r}, got {reply!r}"
        )


def toggles(ctl, count, timeout=30):
    """Down/Up on the shown question's options `count` times; key -> frame of each, seconds."""
    wait_keys_count(ctl)
    times = []
    for i in range(count):
        key, row = ("Down", "❯ 2.") if i % 2 == 0 else ("Up", "❯ 1.")
        ctl.quiet()
        t_key = ctl.send_keys(key)
        t, _ = ctl.wait_screen(f"{row} after {key}", lambda s: row in s, t_key, timeout)
        times.append(t - t_key)
    return times


BANNER = re.compile(r"\ba(\d+) asks(?: · (\d+) of (\d+) waiting)?")


def banner(screen):
    m = BANNER.search(screen)
    if not m:
        return None
    agent = int(m.group(1))
    waiting = int(m.group(3)) if m.group(3) else 1
    return agent, waiting


def answer_current(world, pipes, agent, waiting):
    """Answers the shown request (agent `aK` picks `Design K%4` on Q1) and checks its caller's
    envelope. Whether the caller got it (not if Zellij lost the call, see `LostCall`)."""
    ctl = world.ctl
    wait_keys_count(ctl)
    keys = ["Down"] * (agent % 4) + ["Enter", "Left", "Left"]
    for key in keys:
        ctl.send_keys(key)
    ctl.wait_screen(
        f"a{agent}'s Submit tab",
        lambda s: banner(s) == (agent, waiting)
        and "Review your answers" in s
        and "❯ 1. Submit answers" in s,
        now(),
        60,
    )
    ctl.send_keys("Enter")
    pipe = pipes[agent]
    try:
        ctl.wait_reply(pipe, 60)
    except LostCall as e:
        log(f"  lost call a{agent} (asked again with the same id): {e}")
        world.lost_calls += 1
        pipe.retries += 1
        pipe.spawn()
        return False
    check_envelope(pipe.reply(), f"m{agent:02d}", f"Design {agent % 4} 設計")
    return True


def many_agents(world, worst_template, n_agents, n_toggles):
    """1 request pending, then `n_agents` at once; key -> frame with 1 and with n pending, and
    every caller answered with its own envelope."""
    ctl = world.ctl
    pipes = {}

    def tick():
        for k, p in pipes.items():
            if p.retry_if_missed():
                log(f"  (m{k:02d}: the CLI missed the session, sent again)")
            elif p.retry_if_lost():
                log(f"  (m{k:02d}: Zellij ended the CLI without a reply, asked again with the same id)")
            elif p.exited() and p.eof and p.t_reply is None:
                raise BenchError(
                    f"m{k:02d}'s `zellij pipe` exited {p.proc.returncode} early: {p.stderr()!r}"
                )

    def answer_all(toggle_last):
        """Answers what is pending until every caller has its reply; toggles on the last one."""
        toggled = []
        answered = set()
        while True:
            unreplied = [k for k, p in pipes.items() if p.t_reply is None]
            if not unreplied:
                return toggled
            _, screen = ctl.wait_screen(
                f"{len(unreplied)} waiting",
                lambda s: (banner(s) or (0, 0))[1] == len(unreplied)
                and "Review your answers" not in s,
                now(),
                60,
                tick,
            )
            agent, waiting = banner(screen)
            if agent in answered and pipes[agent].t_reply is not None:
                raise BenchError(f"a{agent} is shown again after it was answered")
            if waiting == 1 and toggle_last and not toggled:
                toggled = toggles(ctl, n_toggles)
            if answer_current(world, pipes, agent, waiting):
                answered.add(agent)

    # 1 pending.
    pipes[99] = Pipe(world, OURS, "id=m99,agent=a99", worst_template.replace("NONCE", "[m-solo]", 1))
    one_before = answer_all(True)
    ctl.wait_exit(pipes.pop(99), 15)
    ctl.wait_screen("the solo request gone", lambda s: "[m-solo]" not in s, now(), 15)

    # n pending at once.
    t0 = now()
    for k in range(n_agents):
        payload = worst_template.replace("NONCE", f"[m{k:02d}]", 1)
        pipes[k] = Pipe(world, OURS, f"id=m{k:02d},agent=a{k}", payload)
    t_all, _ = ctl.wait_screen(
        f"{n_agents} waiting",
        lambda s: (banner(s) or (0, 0))[1] == n_agents,
        t0,
        300,
        tick,
    )
    log(f"  {n_agents} requests pending after {t_all - t0:.2f} s")
    # Every shown request starts on its first option; toggle on the one shown.
    many = toggles(ctl, n_toggles)
    one_after = answer_all(True)
    for k, p in pipes.items():
        ctl.wait_exit(p, 30)
        lines = [l for l in p.out.decode(errors="replace").split("\n") if l]
        if len(lines) != 1:
            raise BenchError(f"m{k:02d} got {len(lines)} lines: {lines!r}")
        check_envelope(lines[0], f"m{k:02d}", f"Design {k % 4} 設計")
    return {
        "all_pending_after_s": t_all - t0,
        "answered": len(pipes),
        "asked_again": sum(p.retries for p in pipes.values()),
        "one_pending": one_before + one_after,
        "many_pending": many,
    }


# ---------------------------------------------------------------------------------------------
# Statistics and the report


def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    pos = (len(xs) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def summary(xs):
    ms = [x * 1000 for x in xs]
    return {
        "n": len(ms),
        "median": quantile(ms, 0.5),
        "p10": quantile(ms, 0.1),
        "p90": quantile(ms, 0.9),
        "min": min(ms),
        "max": max(ms),
    }


def fmt(s):
    return f"{s['median']:7.1f} [{s['p10']:6.1f} – {s['p90']:6.1f}]"


TIMINGS = [
    ("a", "pipe → first frame"),
    ("b", "key → frame"),
    ("c", "Enter → reply"),
]
BUDGET = {"small": 1.25, "one": 1.5, "worst": 1.15}
# A key press: the worst key (Down, to the next option and its preview); tighter for the worst
# payload, where the plugin's own work would show first.
KEY_BUDGET = {"small": 1.25, "one": 1.25, "worst": 1.10}


def timing_budget(kind, key):
    return KEY_BUDGET[kind] if key == "b" else BUDGET[kind]
# What `ask-popup ask` may add to a bare `zellij pipe`, call -> reply.
COMMAND_BUDGET = 1.10


# The first question of a session, by clients attached.
COLD_BUDGET = {1: 1.10, 2: 1.10}


def table_head(out, first, second, third, fourth, ratio):
    """A table's head line and its rule, in the columns every table of the report uses."""
    head = f"{first:8} {second:24} {third:>25} {fourth:>25} {ratio:>10}  budget"
    out.append(head)
    out.append("-" * len(head))


def report(meta, results, command, many, cold=None, instructions=None):
    out = []
    out.append(
        f"End-to-end latency, Zellij {meta['zellij']}, tmux {COLS}x{ROWS}, {meta['runs']} runs "
        f"(+{meta['warmup']} warm-up) per cell; ms, median [p10 – p90]"
    )
    out.append(
        "payloads on the CLI's stdin as one line: "
        + ", ".join(f"{kind} {n} bytes" for kind, n in meta["payload_bytes"].items())
        + "; the floor replies as many bytes as ask-popup: "
        + ", ".join(f"{kind} {n}" for kind, n in meta["reply_bytes"].items())
    )
    out.append("")
    table_head(out, "payload", "timing", "ask-popup", "floor", "ours/floor")
    for kind in results[OURS]:
        if not results[OURS][kind]["a"]:
            continue
        for key, name in TIMINGS:
            ours = summary(results[OURS][kind][key])
            floor = summary(results[FLOOR][kind][key])
            ratio = ours["median"] / floor["median"]
            verdict = "ok" if ratio <= timing_budget(kind, key) else "OVER"
            out.append(
                f"{kind:8} ({key}) {name:20} {fmt(ours):>25} {fmt(floor):>25} {ratio:10.2f}  "
                f"≤{timing_budget(kind, key)} {verdict}"
            )
    if command:
        out.append("")
        out.append(
            "The command's own cost: `ask-popup ask` against a bare `zellij pipe`, same payload, "
            "same keys"
        )
        table_head(out, "payload", "timing", "ask-popup ask", "zellij pipe", "ratio")
        for kind, cells in command.items():
            for key, name in (("total", "call → reply"), ("enter", "Enter → reply")):
                cmd = summary(cells["command"][key])
                bare = summary(cells["pipe"][key])
                ratio = cmd["median"] / bare["median"]
                budget = ""
                if key == "total":
                    verdict = "ok" if ratio <= COMMAND_BUDGET else "OVER"
                    budget = f"≤{COMMAND_BUDGET} {verdict}"
                out.append(
                    f"{kind:8} {name:24} {fmt(cmd):>25} {fmt(bare):>25} {ratio:10.2f}  {budget}"
                )
    if many:
        one = summary(many["one_pending"])
        lots = summary(many["many_pending"])
        ratio = lots["median"] / one["median"]
        out.append("")
        out.append(
            f"Many agents: {many['agents']} worst-case requests sent at once, all pending after "
            f"{many['all_pending_after_s']:.2f} s; {many['answered']}/{many['agents']} callers got "
            "exactly one envelope with their own requestId and answer"
            + (f" ({many['asked_again']} asked again, see below)" if many["asked_again"] else "")
        )
        out.append(
            f"{'key → frame (Down/Up)':33} {'1 pending':>25} "
            f"{str(many['agents']) + ' pending':>25} {'ratio':>10}  budget"
        )
        verdict = "ok" if ratio <= 1.5 else "OVER"
        out.append(
            f"{'ask-popup, worst case':33} {fmt(one):>25} {fmt(lots):>25} {ratio:10.2f}  ≤1.5 {verdict}"
        )
    if cold:
        out.append("")
        out.append(
            "Cold start: the first question of a fresh session (the plugin loaded by it, its "
            "permissions granted beforehand), `zellij pipe` → the question on screen"
        )
        table_head(out, "clients", "", "ask-popup", "floor", "ours/floor")
        for clients, cells in cold.items():
            ours = summary(cells[OURS])
            floor = summary(cells[FLOOR])
            ratio = ours["median"] / floor["median"]
            budget = COLD_BUDGET[clients]
            verdict = "ok" if ratio <= budget else "OVER"
            out.append(
                f"{clients:<8} {'pipe → first frame':24} {fmt(ours):>25} {fmt(floor):>25} "
                f"{ratio:10.2f}  ≤{budget} {verdict}"
            )
    if instructions:
        out.append("")
        out.append(
            "The key's work in instructions (callgrind, `benches/first_frame_instructions.sh`: "
            "Down to the next option, taken in, drawn, turned into output, on the host; the same "
            "work Zellij's interpreter does for it), with what a key could show laid out while "
            "the user reads, and without"
        )
        out.append(f"{'payload':8} {'':24} {'laid out ahead':>25} {'without':>25} {'ratio':>10}")
        for kind, (ahead, without) in instructions.items():
            out.append(
                f"{kind:8} {'key → frame':24} {ahead:>25,} {without:>25,} {ahead / without:10.2f}"
            )
    out.append("")
    reads = "Screen reads: tmux control mode, a capture after every %output; "
    if meta["capture_rtts"]:
        rtt = summary(meta["capture_rtts"])
        reads += (
            f"capture round trip median {rtt['median']:.2f} ms (p90 {rtt['p90']:.2f}, "
            f"max {rtt['max']:.1f}); "
        )
    out.append(
        reads
        + f"CLI calls that missed the session and were sent again: {meta['missed_retries']}; "
        f"calls Zellij ended with exit 0 and no reply before the answer (run or asked again): "
        f"{meta['lost_calls']}"
    )
    out.append(
        "Each request, key and Enter is sent once the terminal has been quiet for 50 ms "
        f"(it was not within 3 s: {meta['unsettled_keys']} times). Load average (1 min) "
        f"{meta['loadavg_start'][0]:.2f} at start, {meta['loadavg_end'][0]:.2f} at end, "
        f"{meta['cpus']} CPUs; {meta['seconds']:.0f} s in all."
    )
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True, help="an empty, short temp dir (sockets live in it)")
    ap.add_argument("--zellij", required=True)
    ap.add_argument("--tmux", default="tmux")
    ap.add_argument("--ours", required=True, help="ask-popup.wasm")
    ap.add_argument("--floor", required=True, help="bench-floor.wasm")
    ap.add_argument("--worst", required=True, help="the worst-case questionnaire, one JSON line")
    ap.add_argument("--one", help="the 1-question questionnaire with previews, one JSON line")
    ap.add_argument("--command", help="the `ask-popup` command (host build), for its own cost")
    ap.add_argument("--skip-command", action="store_true")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--agents", type=int, default=32)
    ap.add_argument("--toggles", type=int, default=40, help="key presses per pending count")
    ap.add_argument("--skip-many", action="store_true")
    ap.add_argument("--cold", type=int, default=20,
                    help="fresh sessions per plugin and client count for the cold start (0: none)")
    ap.add_argument("--skip-warm", action="store_true",
                    help="only the cold start (and what --skip-command/--skip-many leave)")
    ap.add_argument("--out", help="a dir for results.json and results.md")
    ap.add_argument("--instructions",
                    help="what `benches/first_frame_instructions.sh` printed, for the key's instructions")
    args = ap.parse_args()

    def on_term(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)

    version = subprocess.run([args.zellij, "--version"], capture_output=True, text=True).stdout.strip()
    if version != "zellij 0.45.1":
        raise BenchError(f"needs zellij 0.45.1, {args.zellij} is {version!r}")
    with open(args.worst, encoding="utf-8") as f:
        worst = template(json.loads(f.read()))
    small = template(SMALL)
    payloads = {"small": small}
    if args.one:
        with open(args.one, encoding="utf-8") as f:
            payloads["one"] = template(json.loads(f.read()))
    payloads["worst"] = worst

    world = World(
        args.root,
        args.zellij,
        args.tmux,
        {OURS: os.path.abspath(args.ours), FLOOR: os.path.abspath(args.floor)},
    )
    nonces = Nonces()
    results = {p: {k: {"a": [], "b": [], "c": []} for k in payloads} for p in (OURS, FLOOR)}
    reply_bytes = {}
    command = None
    many = None
    started = now()
    load_start = os.getloadavg()
    cold = None
    if args.cold:
        log(f"Cold start: {args.cold} fresh sessions per plugin, one client then two")
        cold = {}
        for clients in (1, 2):
            cold[clients] = {OURS: [], FLOOR: []}
            for i in range(args.cold):
                order = (OURS, FLOOR) if i % 2 == 0 else (FLOOR, OURS)
                times = cold_start(args, order, clients, nonces, f"{clients}-{i}")
                for plugin, t in times.items():
                    cold[clients][plugin].append(t)
                log(
                    f"  cold {clients} client{'s' if clients > 1 else ' '} run {i + 1:2}  "
                    + "  ".join(f"{p} {times[p] * 1000:6.1f}" for p in (OURS, FLOOR))
                    + " ms"
                )
    try:
        world.start()
        log(f"Zellij is up ({now() - started:.1f} s)")
        for kind, payload in payloads.items():
            if args.skip_warm:
                break
            for i in range(args.warmup + args.runs):
                order = (OURS, FLOOR) if i % 2 == 0 else (FLOOR, OURS)
                for plugin in order:
                    for attempt in range(5):
                        try:
                            a, b, c, size = one_request(
                                world, plugin, kind, payload, nonces.next(), reply_bytes
                            )
                            break
                        except LostCall as e:
                            world.lost_calls += 1
                            log(f"  lost call, run again: {e}")
                    else:
                        raise BenchError("5 lost calls in a row")
                    if plugin == OURS:
                        # What the floor replies next (ask-popup goes first in the first run).
                        reply_bytes[kind] = size
                    if i >= args.warmup:
                        for key, v in zip("abc", (a, b, c)):
                            results[plugin][kind][key].append(v)
                    label = f"run {i - args.warmup + 1}" if i >= args.warmup else f"warm-up {i + 1}"
                    log(
                        f"  {kind:5} {label:9} {plugin:9} a {a * 1000:7.1f}  b {b * 1000:6.1f}  "
                        f"c {c * 1000:6.1f} ms  ({size} bytes replied)"
                    )
        if args.command and not args.skip_command:
            log("The command's own cost: `ask-popup ask` against a bare `zellij pipe`")
            command = {k: {h: {"total": [], "enter": []} for h in ("command", "pipe")} for k in payloads}
            for kind, payload in payloads.items():
                for i in range(args.warmup + args.runs):
                    order = ("command", "pipe") if i % 2 == 0 else ("pipe", "command")
                    for how in order:
                        for attempt in range(5):
                            try:
                                total, enter = asked_by(
                                    world, how, kind, payload, nonces.next(), args.command
                                )
                                break
                            except LostCall as e:
                                world.lost_calls += 1
                                log(f"  lost call, run again: {e}")
                        else:
                            raise BenchError("5 lost calls in a row")
                        if i >= args.warmup:
                            command[kind][how]["total"].append(total)
                            command[kind][how]["enter"].append(enter)
                        label = f"run {i - args.warmup + 1}" if i >= args.warmup else f"warm-up {i + 1}"
                        log(
                            f"  {kind:5} {label:9} {how:8} call → reply {total * 1000:7.1f}  "
                            f"Enter → reply {enter * 1000:6.1f} ms"
                        )
        if not args.skip_many:
            log(f"Many agents: {args.agents} worst-case requests")
            many = many_agents(world, worst, args.agents, args.toggles)
            many["agents"] = args.agents
    except BenchError:
        log(f"--- the Zellij log (tail) ---\n{world.log_tail()}\n---")
        raise
    finally:
        world.close()

    meta = {
        "zellij": "0.45.1",
        "runs": args.runs,
        "warmup": args.warmup,
        "payload_bytes": {
            kind: len(payload.replace("NONCE", "[n0000]").encode())
            for kind, payload in payloads.items()
        },
        "reply_bytes": reply_bytes,
        "capture_rtts": world.ctl.capture_rtts,
        "missed_retries": world.missed_retries,
        "lost_calls": world.lost_calls,
        "unsettled_keys": world.ctl.noisy if world.ctl else 0,
        "loadavg_start": load_start,
        "loadavg_end": os.getloadavg(),
        "cpus": os.cpu_count(),
        "seconds": now() - started,
    }
    instructions = None
    if args.instructions:
        instructions = {}
        names = {"one": "one", "four": "worst"}
        with open(args.instructions) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 4 and parts[0] == "key-instructions":
                    instructions[names.get(parts[1], parts[1])] = (int(parts[2]), int(parts[3]))
    text = report(meta, results, command, many, cold, instructions)
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "results.md"), "w") as f:
            f.write("```\n" + text + "\n```\n")
        raw = {
            "meta": {k: v for k, v in meta.items() if k != "capture_rtts"},
            "capture_rtt_ms": summary(meta["capture_rtts"]) if meta["capture_rtts"] else None,
            "samples_s": results,
            "command_samples_s": command,
            "many_agents": many,
            "cold_samples_s": cold,
            "key_instructions": instructions,
        }
        with open(os.path.join(args.out, "results.json"), "w") as f:
            json.dump(raw, f, indent=1)
        log(f"wrote {args.out}/results.md and results.json")


if __name__ == "__main__":
    try:
        main()
    except BenchError as e:
        log(f"e2e_latency: {e}")
        sys.exit(1)
    except KeyboardInterrupt:
        log("e2e_latency: interrupted")
        sys.exit(130)
