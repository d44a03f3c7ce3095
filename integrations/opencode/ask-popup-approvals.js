// ask-popup for opencode: opencode's permission prompts asked in the ask-popup Zellij popup.
//
// Opt-in: `ask-popup setup opencode --approvals --write` puts this file beside ask-popup.js in
// opencode's plugin folder (opencode loads every `*.js` there as a plugin), and `--remove
// --write` takes it out. What it does is `approvals` in ./ask-popup.js.
import { approvals } from "./ask-popup.js";

export default { id: "ask-popup-approvals", server: approvals };
