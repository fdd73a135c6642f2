"""Drives `ward mcp serve` with the official MCP Python SDK, for tests/e2e/mcp_serve.

Reads a plan (JSON, the first argument): how to reach the server, how to answer
elicitations, which protocol negotiation to use, and the steps to take. Prints what
happened as one JSON object on standard output: the negotiated protocol version, the
result of each step, the elicitation questions seen and the tools/list_changed
notifications received.

    {"stdio": {"command": "ward", "args": ["mcp", "serve"], "env": {...}, "cwd": "..."}
     | "url": "http://127.0.0.1:PORT/mcp",
     "mode": "auto" | "legacy",          # 2026-07-28 if the server offers it, or the handshake
     "elicit": null | "accept" | "always" | "decline",   # null: no elicitation capability
     "listen": true,                     # open a subscriptions/listen stream (2026-07-28)
     "steps": [{"op": "list"}, {"op": "call", "name": "noop", "args": {}},
               {"op": "install", "from": DIR, "to": DIR}, {"op": "remove", "path": DIR},
               {"op": "await_list_changed", "timeout": 30}]}
"""

import asyncio
import json
import shutil
import sys

from mcp import Client, types
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main(plan):
    record = {"results": [], "elicitations": [], "list_changed": 0}
    changed = asyncio.Event()

    def saw_change():
        record["list_changed"] += 1
        changed.set()

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            saw_change()

    elicit = plan.get("elicit")

    async def on_elicit(context, params):
        record["elicitations"].append(params.message)
        if elicit == "decline":
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"always": elicit == "always"})

    if "stdio" in plan:
        s = plan["stdio"]
        server = StdioServerParameters(command=s["command"], args=s["args"], env=s["env"], cwd=s["cwd"])
    else:
        server = plan["url"]
    client = Client(
        server,
        mode=plan.get("mode", "auto"),
        message_handler=on_message,
        elicitation_callback=on_elicit if elicit else None,
        read_timeout_seconds=60,
    )
    async with client:
        record["protocol"] = client.protocol_version
        record["server"] = client.server_info.name if client.server_info else None
        listener = None
        if plan.get("listen"):
            ready = asyncio.Event()

            async def listen():
                async with client.listen(tools_list_changed=True) as sub:
                    ready.set()
                    async for _event in sub:
                        saw_change()

            listener = asyncio.create_task(listen())
            await asyncio.wait_for(ready.wait(), 30)
        for step in plan["steps"]:
            op = step["op"]
            if op == "list":
                tools = await client.list_tools()
                record["results"].append({"tools": [dump(t) for t in tools.tools]})
            elif op == "call":
                try:
                    result = await client.call_tool(step["name"], step.get("args", {}))
                    record["results"].append(dump(result))
                except MCPError as e:
                    record["results"].append({"protocol_error": str(e)})
            elif op == "install":
                shutil.copytree(step["from"], step["to"])
                record["results"].append({})
            elif op == "remove":
                shutil.rmtree(step["path"])
                record["results"].append({})
            elif op == "await_list_changed":
                changed.clear() if step.get("fresh") else None
                try:
                    await asyncio.wait_for(changed.wait(), step.get("timeout", 30))
                    record["results"].append({"changed": True})
                except TimeoutError:
                    record["results"].append({"changed": False})
                changed.clear()
            else:
                raise ValueError(f"unknown step {op}")
        if listener:
            listener.cancel()
    print(json.dumps(record))


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
