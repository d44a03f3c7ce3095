#!/usr/bin/env bash
# Takes the README's pictures again: the real popup, asking the demo's questionnaire, in Zellij's
# web client in a headless Chromium (the e2e test `web::the_readme_picture_is_the_real_popup_in_
# the_browser`, which saves its screenshot when ASK_POPUP_SCREENSHOT names a file), and on a phone
# (`phone::a_questionnaire_shows_on_a_phone_…`, with ASK_POPUP_PHONE_SCREENSHOT).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

bash scripts/ensure-tools.sh
bash scripts/build-plugin.sh
mkdir -p docs
ASK_POPUP_SCREENSHOT="$(pwd)/docs/popup.png" \
    cargo test --test e2e -- --exact web::the_readme_picture_is_the_real_popup_in_the_browser
ASK_POPUP_PHONE_SCREENSHOT="$(pwd)/docs/phone.png" \
    cargo test --test e2e -- --exact \
    phone::a_questionnaire_shows_on_a_phone_that_is_the_only_client_and_is_answered_by_taps
echo "docs/popup.png: $(wc -c < docs/popup.png) bytes"
echo "docs/phone.png: $(wc -c < docs/phone.png) bytes"
