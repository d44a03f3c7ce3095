#!/usr/bin/env bash
# The demo: sets everything up, then opens Zellij with an agent pane that asks a real
# questionnaire (three tabs, a markdown preview, a multi-select question) through ask-popup and
# prints the answer it got.
#
# Zellij runs with its own config, cache and data directories under target/demo/, so your own
# Zellij configuration and sessions are never touched. In a terminal you answer the questions
# yourself; without one (a script, CI) the demo runs in a detached tmux, answers with key presses
# and prints what the screen and the agent showed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

bash scripts/ensure-tools.sh
bash scripts/build-plugin.sh
wasm="$root/target/wasm32-wasip1/release/ask-popup.wasm"

demo="$root/target/demo"
rm -rf "$demo"
mkdir -p "$demo/config" "$demo/cache/zellij/0.45.1" "$demo/data" "$demo/sock"
# With release notes pending (a fresh cache), Zellij 0.45.1 ignores the layout given to it.
touch "$demo/cache/zellij/0.45.1/seen_release_notes"
cat >"$demo/config.kdl" <<EOF
show_startup_tips false
show_release_notes false
plugins {
    ask-popup location="file:$wasm" {
        hide_key "Ctrl ]"
    }
}
keybinds {
    shared_except "locked" {
        bind "Ctrl y" {
            MessagePlugin "ask-popup" {
                name "show"
            }
        }
    }
}
EOF
# The demo grants the plugin its permissions up front; with plugin.kdl in your own config,
# Zellij asks once in the popup instead.
cat >"$demo/cache/zellij/permissions.kdl" <<EOF
"$wasm" {
    ReadCliPipes
    ChangeApplicationState
    MessageAndLaunchOtherPlugins
    ReadApplicationState
}
EOF
cat >"$demo/layout.kdl" <<EOF
layout {
    default_tab_template {
        pane size=1 borderless=true {
            plugin location="zellij:tab-bar"
        }
        children
        pane size=2 borderless=true {
            plugin location="zellij:status-bar"
        }
    }
    tab name="agents" {
        pane name="demo-agent" command="bash" {
            args "$root/examples/demo-agent.sh"
        }
    }
}
EOF

# Zellij in the demo's own world; a script so that tmux can run it too.
cat >"$demo/zellij.sh" <<EOF
#!/usr/bin/env bash
export XDG_CONFIG_HOME="$demo/config" XDG_CACHE_HOME="$demo/cache"
export XDG_DATA_HOME="$demo/data" ZELLIJ_SOCKET_DIR="$demo/sock"
exec zellij --config "$demo/config.kdl" "\$@"
EOF
chmod +x "$demo/zellij.sh"

if [ -t 0 ] && [ -t 1 ]; then
    exec "$demo/zellij.sh" --new-session-with-layout "$demo/layout.kdl" --session "ask-popup-demo-$$"
fi

# No terminal: drive the demo in a detached tmux and show what happened.
sock="apdemo$$"
session="demo$$"
tmux_() { tmux -L "$sock" "$@"; }
cleanup() {
    timeout 10 "$demo/zellij.sh" kill-session "$session" >/dev/null 2>&1 || true
    tmux_ kill-server >/dev/null 2>&1 || true
}
trap cleanup EXIT
tmux_ -f /dev/null new-session -d -s demo -x 140 -y 42 \
    "$demo/zellij.sh --new-session-with-layout $demo/layout.kdl --session $session"

wait_for() { # text, seconds
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        if tmux_ capture-pane -p -t demo 2>/dev/null | grep -qF -- "$1"; then return 0; fi
        sleep 0.1
    done
    echo "the demo never showed: $1" >&2
    tmux_ capture-pane -p -t demo >&2
    return 1
}
keys() { tmux_ send-keys -t demo "$@"; sleep 0.3; }

wait_for "Which database should the new billing service use?" 60
echo "--- the popup, as the agent asks ---"
tmux_ capture-pane -p -t demo
keys Enter                          # Postgres, on to Features
wait_for "Which features ship" 20
keys Space Down Space Down Down Down Down Enter   # Invoices, Refunds, then Next
wait_for "When should the migration run?" 20
keys Down Enter                     # Saturday morning, on to Submit
wait_for "Review your answers" 20
echo "--- the review tab ---"
tmux_ capture-pane -p -t demo
keys Enter
wait_for "demo-agent got" 20
sleep 0.5
echo "--- the agent's pane after the answer ---"
tmux_ capture-pane -p -J -t demo
