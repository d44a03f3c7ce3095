#!/usr/bin/env bash
# Takes the README's picture again: the real popup, asking the demo's questionnaire, in Zellij's
# web client in a headless Chromium (the e2e test `web::the_readme_picture_is_the_real_popup_in_
# the_browser`, which saves its screenshot when ASK_POPUP_SCREENSHOT names a file).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

bash scripts/ensure-tools.sh
bash scripts/build-plugin.sh
mkdir -p docs
ASK_POPUP_SCREENSHOT="$(pwd)/docs/popup.png" \
    cargo test --test e2e -- --exact web::the_readme_picture_is_the_real_popup_in_the_browser
echo "docs/popup.png: $(wc -c < docs/popup.png) bytes"
