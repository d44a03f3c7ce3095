// A Pi extension for the e2e tests: a permission gate, as other extensions write them, that asks
// in Pi's own confirm dialog before any `ask_user_question` call runs. While its dialog waits,
// Pi waits on the user as it does on our own questions.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName !== "ask_user_question" || !ctx.hasUI) return undefined;
    const allowed = await ctx.ui.confirm("Gate: allow ask_user_question?", "The test's permission gate asks first.");
    return allowed ? undefined : { block: true, reason: "the gate said no" };
  });
}
