"""A second MCP client for `ask-popup mcp`, independent of the Rust SDK the server is written
with: the MCP Python SDK (PyPI `mcp`). It starts the server on stdio as any client does, then:

  list                 writes the tools the server lists, as they came over the wire
  call ARGS            calls ask_user_question with ARGS (JSON) and a progress token, and
                       writes the result and every progress notification
  cancel ARGS SECONDS  calls it, gives up after SECONDS (the SDK then sends
                       notifications/cancelled) and keeps the session open 8 s more
  later ARGS           calls ask_user_question with ARGS and wait false, then get_user_answer with its
                       requestId at once (writing OUT.asked with both results), then
                       get_user_answer waiting up to 60 s

Usage: mcp_client.py SERVER OUT MODE [ARGS [SECONDS]]; OUT gets one JSON document, written once
everything is done, and OUT.progress each progress notification as it comes (a JSON line each),
for a test that waits for them. The server gets the variables it needs to reach the Zellij session, as a
configured client passes them (the SDK passes a server only a few variables of its own); the
test names them in ASK_POPUP_MCP_ENV_VARS.
"""

import json
import os
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# The variables a configured client passes the server (`ask_popup::command::setup::MCP_ENV_VARS`,
# given by the test as ASK_POPUP_MCP_ENV_VARS), and PATH.
PASSED = os.environ.get("ASK_POPUP_MCP_ENV_VARS", "").split(",") + ["PATH"]


def wire(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main(server, out, mode, arguments=None, seconds=None):
    env = {k: os.environ[k] for k in PASSED if k in os.environ}
    params = StdioServerParameters(command=server, args=["mcp"], env=env)
    report = {"progress": []}

    async def progress(value, total, message):
        note = {"progress": value, "message": message}
        report["progress"].append(note)
        with open(out + ".progress", "a") as f:
            f.write(json.dumps(note) + "\n")

    async with stdio_client(params) as streams:
        async with ClientSession(*streams) as session:
            init = await session.initialize()
            report["initialize"] = wire(init)
            if mode == "list":
                report["tools"] = [wire(t) for t in (await session.list_tools()).tools]
            elif mode == "call":
                result = await session.call_tool(
                    "ask_user_question", json.loads(arguments), progress_callback=progress
                )
                report["result"] = wire(result)
            elif mode == "cancel":
                with anyio.move_on_after(float(seconds)) as scope:
                    result = await session.call_tool(
                        "ask_user_question", json.loads(arguments), progress_callback=progress
                    )
                    report["result"] = wire(result)
                report["gave_up"] = scope.cancelled_caught
                # The server is told while the session is still open: the question must leave
                # the popup because of the cancellation, not because stdin closed.
                await anyio.sleep(8)
            elif mode == "later":
                asked = wire(
                    await session.call_tool("ask_user_question", {**json.loads(arguments), "wait": False})
                )
                text = asked["content"][0]["text"]
                request_id = text.split('requestId is "', 1)[1].split('"', 1)[0]
                at_once = wire(await session.call_tool("get_user_answer", {"requestId": request_id}))
                report["asked"] = asked
                report["at_once"] = at_once
                with open(out + ".asked.tmp", "w") as f:
                    json.dump({"asked": asked, "at_once": at_once}, f)
                os.replace(out + ".asked.tmp", out + ".asked")
                report["answer"] = wire(
                    await session.call_tool(
                        "get_user_answer", {"requestId": request_id, "waitSeconds": 60}
                    )
                )
            else:
                raise SystemExit(f"unknown mode {mode!r}")
    with open(out + ".tmp", "w") as f:
        json.dump(report, f)
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    anyio.run(main, *sys.argv[1:])
