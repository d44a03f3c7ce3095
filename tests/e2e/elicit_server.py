"""An MCP server that asks the user to fill in a form (MCP elicitation), for the tests of forms
answered in the popup: the MCP Python SDK (PyPI `mcp`), run on stdio by the agent that added it.

Its tool ask_prefs (no arguments) asks for four fields: name (text, required), count (a
whole number from 1 to 5, required), confirm (yes or no, default no) and color (red, green or
blue, default red), with the message "Please fill in your preferences". It returns, as plain
text, "accepted: <the content as JSON>" or the action ("decline", "cancel"), and writes what it got
to the file named by ELICIT_RESULT as one JSON line, {"action": ..., "content": {...}} (content
only on accept), so that a test reads exactly what reached the server. Its tool confirm_delete
(no arguments) asks a plain confirmation, a form with nothing to fill in, with the message
"Delete the production database?", and returns and writes the same.

Elicitation goes through a resolver (`Resolve`): it works on the protocol Claude Code 2.1.332
negotiates (2026-07-28), where the tool's call comes back asking for input and is made again
with the answer, as on the older ones; `ctx.elicit` does not.

Usage: elicit_server.py (the agent starts it; ELICIT_RESULT in its environment).
"""

import json
import os
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    Elicit,
    ElicitationResult,
    MCPServer,
    Resolve,
)

mcp = MCPServer("elicit")


class Prefs(BaseModel):
    name: str = Field(description="Your name")
    count: int = Field(ge=1, le=5, description="How many (1-5)")
    confirm: bool = Field(default=False, description="Really?")
    color: Literal["red", "green", "blue"] = Field(default="red", description="Pick a color")


def ask(ctx: Context) -> Elicit[Prefs]:
    return Elicit("Please fill in your preferences", Prefs)


def note(got):
    """Appends what the server got to ELICIT_RESULT, one JSON line."""
    with open(os.environ["ELICIT_RESULT"], "a") as f:
        f.write(json.dumps(got) + "\n")


@mcp.tool(structured_output=False)
async def ask_prefs(prefs: Annotated[ElicitationResult[Prefs], Resolve(ask)]) -> str:
    """Asks the user for their preferences through a form."""
    if isinstance(prefs, AcceptedElicitation):
        note({"action": prefs.action, "content": prefs.data.model_dump(mode="json")})
        return f"accepted: {prefs.data.model_dump_json()}"
    note({"action": prefs.action})
    return prefs.action


class Nothing(BaseModel):
    """A confirmation: no fields, only accept or decline."""


def confirm(ctx: Context) -> Elicit[Nothing]:
    return Elicit("Delete the production database?", Nothing)


@mcp.tool(structured_output=False)
async def confirm_delete(ok: Annotated[ElicitationResult[Nothing], Resolve(confirm)]) -> str:
    """Asks the user to confirm deleting the production database."""
    if isinstance(ok, AcceptedElicitation):
        note({"action": ok.action, "content": ok.data.model_dump(mode="json")})
        return "accepted"
    note({"action": ok.action})
    return ok.action


if __name__ == "__main__":
    mcp.run()
