#!/usr/bin/env bash
# The demo's agent: asks the user a questionnaire through ask-popup and prints what it got,
# as a coding agent's tool call would.
here=$(cd "$(dirname "$0")" && pwd)
printf '\033[1mdemo-agent\033[0m: I need three decisions before I write the billing service.\n'
printf 'Asking through ask-popup… (answer in the popup; Ctrl+] hides it, Ctrl o then y brings it back)\n\n'
# The command as this checkout built it (scripts/demo.sh says where), else the installed one.
ask_popup=${ASK_POPUP_DEMO_COMMAND:-$here/../target/release/ask-popup}
[ -x "$ask_popup" ] || ask_popup=ask-popup
reply=$("$ask_popup" ask --agent demo-agent "$here/demo-questionnaire.json")
status=$?
printf 'demo-agent got (exit status %s):\n\n%s\n\n' "$status" "$reply"
printf 'Press Enter to close this pane.\n'
read -r _
