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

# What the demo needs, and nothing the tests alone need (scripts/test.sh installs those): the
# plugin's target, Zellij 0.45.1, and tmux when there is no terminal to run it in.
tools=(wasm32-wasip1 zellij)
[ -t 0 ] && [ -t 1 ] || tools+=(tmux)
bash scripts/ensure-tools.sh "${tools[@]}"
bash scripts/build-plugin.sh
# Both where cargo builds (`$CARGO_TARGET_DIR` honoured).
target_dir=${CARGO_TARGET_DIR:-target}
case $target_dir in /*) ;; *) target_dir=$root/$target_dir ;; esac
wasm="$target_dir/wasm32-wasip1/plugin/ask-popup.wasm"
ask_popup_command="$target_dir/release/ask-popup"
# The agent side: the `ask-popup` command, built for this machine, carrying the plugin just
# built (as scripts/install.sh builds it, so the two share their build) rather than building
# its own.
ASK_POPUP_PLUGIN_WASM="$wasm" cargo build --release --bin ask-popup >&2

demo="$root/target/demo"
rm -rf "$demo"
mkdir -p "$demo/config" "$demo/cache/zellij/0.45.1" "$demo/data" "$demo/sock" "$demo/layouts"
# With release notes pending (a fresh cache), Zellij 0.45.1 ignores the layout given to it.
touch "$demo/cache/zellij/0.45.1/seen_release_notes"
cat >"$demo/config.kdl" <<EOF
show_startup_tips false
show_release_notes false
layout_dir "$demo/layouts"
plugins {
    ask-popup location="file:$wasm" {
        hide_key "Ctrl ]"
    }
}
keybinds {
    session {
        // Bring a hidden popup back: Ctrl o, then y.
        bind "y" {
            MessagePlugin "ask-popup" {
                name "show"
            }
            SwitchToMode "normal"
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
# Zellij 0.45.1's server reads the layout file given to it through the layout dir; without one
# (no layout_dir, no ~/.config/zellij, as on a fresh machine) it silently starts its default
# layout instead, a bare shell. So the config names the demo's own layout dir, and the layout
# lives in it.
layout="$demo/layouts/demo.kdl"
cat >"$layout" <<EOF
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
export ASK_POPUP_DEMO_COMMAND="$ask_popup_command"
exec zellij --config "$demo/config.kdl" "\$@"
EOF
chmod +x "$demo/zellij.sh"

if [ -t 0 ] && [ -t 1 ]; then
    exec "$demo/zellij.sh" --new-session-with-layout "$layout" --session "ask-popup-demo-$$"
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
    "$(printf '%q ' "$demo/zellij.sh" --new-session-with-layout "$layout" --session "$session")"

screen() { tmux_ capture-pane -p -t demo "$@" 2>/dev/null || true; }
wait_for() { # text, seconds
    local i shown
    for ((i = 0; i < $2 * 10; i++)); do
        shown=$(screen)
        if [[ $shown == *"$1"* ]]; then return 0; fi
        sleep 0.1
    done
    echo "the demo never showed: $1" >&2
    if [[ $shown == *"Tab #1"* ]]; then
        echo "(Zellij started its default layout, not the demo's: $layout)" >&2
    fi
    printf '%s\n' "$shown" >&2
    return 1
}
keys() { tmux_ send-keys -t demo "$@"; sleep 0.3; }

wait_for "Which database should the new billing service use?" 60
# Keys count a moment after the popup appears (its footer shows "…" until then): the plugin
# drops the ones typed for another pane as it opened.
wait_for "Enter select" 10
echo "--- the popup, as the agent asks ---"
screen
keys Enter                          # Postgres, on to Features
wait_for "Which features ship" 20
keys Space Down Space Down Down Down Down Enter   # Invoices, Refunds, then Next
wait_for "When should the migration run?" 20
keys Down Enter                     # Saturday morning, on to Submit
wait_for "Review your answers" 20
echo "--- the review tab ---"
screen
keys Enter
wait_for "demo-agent got" 20
sleep 0.5
echo "--- the agent's pane after the answer ---"
shown=$(screen -J)
printf '%s\n' "$shown"
# The agent must have got the answers, not a decline or an error envelope.
for expected in "demo-agent got (exit status 0)" '"text":"User has answered your questions'; do
    if [[ $shown != *"$expected"* ]]; then
        echo "the demo's agent did not get the answers: its screen lacks: $expected" >&2
        exit 1
    fi
done
echo "demo: the agent got the answers"
