// A Pi extension for the e2e tests: another extension listening to pi-ask-popup's events, as a
// status bar would, through the package's `./events` export. Each event becomes one JSON line in
// the file named by $PI_EVENTS_LOG.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { appendFileSync } from "node:fs";
import { ASK_POPUP_BLOCKED_EVENT, ASK_POPUP_PROMPT_EVENT, HERDR_BLOCKED_EVENT } from "pi-ask-popup/events";

export default function (pi: ExtensionAPI) {
  const log = process.env.PI_EVENTS_LOG;
  if (!log) return;
  for (const channel of [ASK_POPUP_PROMPT_EVENT, ASK_POPUP_BLOCKED_EVENT, HERDR_BLOCKED_EVENT]) {
    pi.events.on(channel, (payload) => appendFileSync(log, JSON.stringify({ channel, payload }) + "\n"));
  }
}
