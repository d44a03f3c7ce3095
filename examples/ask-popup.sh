#!/usr/bin/env bash
# ask-popup.sh: the agent side of ask-popup. Puts a questionnaire to the user through the
# ask-popup Zellij plugin, waits, and prints the one JSON result envelope on stdout.
#
#   ask-popup.sh '{"questions":[...]}'          # the questionnaire as the argument
#   ask-popup.sh < questionnaire.json           # or on stdin (pretty-printed is fine)
#
# Environment (all optional):
#   ASK_POPUP_AGENT   the name the dialog shows for the asking agent (default: parent command)
#   ASK_POPUP_ID      a request id, echoed back in details.requestId (default: a fresh one);
#                     asking again with the same id replaces the earlier request
#   ASK_POPUP_PLUGIN  the plugin URL or alias (default: ask-popup)
#
# Exit status: 0 when the user responded (answers, a decline or a chat request), 1 when the
# envelope carries an error (a validation error, timed_out, dismissed, superseded, busy, or
# aborted: see below), 3 outside Zellij (no_ui), 4 when zellij is not installed, 5 when no
# reply came (the session went away). Every failure still prints an envelope with an "error"
# code, so the caller always gets JSON.
#
# Interrupted (SIGINT, SIGTERM, SIGHUP: the agent was stopped, or a hook hit its timeout), it
# withdraws its question from the popup through the plugin's `cancel` pipe, so nothing is left
# there that nobody waits for, and prints the `aborted` envelope.
set -u

fail() { # code, text, exit status
    local text=${2//\\/\\\\}
    text=${text//\"/\\\"}
    printf '{"content":[{"type":"text","text":"%s"}],"details":{"answers":[],"cancelled":true,"error":"%s"}}\n' "$text" "$1"
    exit "$3"
}

if [ $# -gt 0 ]; then
    payload=$1
else
    payload=$(cat)
fi
# One line: JSON allows no raw line breaks inside strings, so outside them they are spaces.
# Sent on stdin, the payload is not bound by the ~128 KiB limit on one argument.
payload=$(printf '%s' "$payload" | tr '\r\n' '  ')

if [ -z "${ZELLIJ:-}" ] && [ -z "${ZELLIJ_SESSION_NAME:-}" ]; then
    fail no_ui "Error: UI not available (not running inside Zellij, so nobody can see the questions). Ask the questions as plain chat text instead." 3
fi
if ! command -v zellij >/dev/null 2>&1; then
    fail zellij_not_found "Error: zellij is not installed or not on PATH, so the questions cannot be shown. Ask the questions as plain chat text instead." 4
fi

agent=${ASK_POPUP_AGENT:-$(ps -o comm= -p "$PPID" 2>/dev/null || true)}
agent=$(printf '%s' "$agent" | tr -d ',=\n\r' | cut -c1-32)
args="pane_id=${ZELLIJ_PANE_ID:-}"
[ -n "$agent" ] && args="$args,agent=$agent"
# Every request carries an id: asking again with it replaces a request whose caller was lost.
id=$(printf '%s' "${ASK_POPUP_ID:-ask-$$-${RANDOM}${RANDOM}}" | tr -d ',=\n\r')
args="$args,id=$id"

plugin=${ASK_POPUP_PLUGIN:-ask-popup}
out=$(mktemp "${TMPDIR:-/tmp}/ask-popup.XXXXXX") || fail no_reply "Error: could not create a temporary file. Ask the questions as plain chat text instead." 5
asking=
withdraw() {
    trap '' INT TERM HUP
    [ -n "$asking" ] && kill "$asking" 2>/dev/null
    zellij pipe --plugin "$plugin" --name cancel --args "$args" -- withdraw </dev/null >/dev/null 2>&1
    rm -f "$out"
    fail aborted "The question was withdrawn by the agent before the user answered." 1
}
trap withdraw INT TERM HUP

# Zellij 0.45.1 now and then ends a `zellij pipe` at once, with status 0 and no output, while
# the question reaches the plugin; asking again with the same id takes its place in the popup,
# answers and all. A session that is really gone fails the same way every time.
# The CLI runs in the background and is waited for, so a signal is handled at once.
for attempt in 1 2 3; do
    printf '%s\n' "$payload" | zellij pipe --plugin "$plugin" --name ask --args "$args" >"$out" 2>/dev/null &
    asking=$!
    wait "$asking"
    status=$?
    asking=
    reply=$(cat "$out")
    case $reply in
        '{'*) break ;;
    esac
    sleep 0.2
done
trap - INT TERM HUP
rm -f "$out"
case $reply in
    '{'*) ;;
    *) fail no_reply "Error: no reply from ask-popup (zellij pipe exited with status $status; the session may have ended or the plugin is not installed). The user never saw a decline; do NOT treat this as a rejection. Ask the questions as plain chat text instead or retry." 5 ;;
esac
printf '%s\n' "$reply"
case $reply in
    *'"error":"'*) exit 1 ;;
esac
exit 0
