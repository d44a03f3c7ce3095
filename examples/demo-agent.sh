#!/usr/bin/env bash
# The demo's agent: asks the user a questionnaire through ask-popup and prints what it got,
# as a coding agent's tool call would.
here=$(cd "$(dirname "$0")" && pwd)
printf '\033[1mdemo-agent\033[0m: I need three decisions before I write the billing service.\n'
printf 'Asking through ask-popup… (answer in the popup; Ctrl+] hides it, Ctrl+y brings it back)\n\n'
reply=$(ASK_POPUP_AGENT=demo-agent "$here/ask-popup.sh" < "$here/demo-questionnaire.json")
status=$?
printf 'demo-agent got (exit status %s):\n\n%s\n\n' "$status" "$reply"
printf 'Press Enter to close this pane.\n'
read -r _
