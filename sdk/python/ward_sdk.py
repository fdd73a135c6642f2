"""Ward's Python SDK: `@tool` turns plain functions into the `ward:plugin/tool` export.

`ward plugin build` provides this module when a plugin has no `ward_sdk.py` of its own.
A plugin's `app.py` imports `Tool` (the export componentize-py looks for) and decorates
its functions; `host` is the `ward:plugin/host` import (log, progress, ask, exec,
http_fetch), each checked against the plugin's grants.
"""

import json

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import host
from wit_world.imports.types import (
    ToolError_Denied,
    ToolError_Failed,
    ToolError_InvalidArguments,
    ToolInfo,
    ToolOutput,
)

__all__ = ["Denied", "InvalidArguments", "Output", "Tool", "host", "tool"]

_TOOLS = {}


class Denied(Exception):
    """Raised by a tool to refuse an action; the model reads the message."""


class InvalidArguments(Exception):
    """Raised by a tool when its arguments make no sense; the model reads the message."""


class Output:
    """A tool result with a title and metadata; a plain string is the output alone."""

    def __init__(self, output, title=None, metadata=None):
        self.output, self.title, self.metadata = output, title, metadata or {}


def tool(description, parameters=None, name=None):
    """Registers the decorated `fn(args, context)` as a tool.

    `parameters` is a JSON Schema, or `{name: schema}` for an object whose properties
    are all required.
    """

    def register(fn):
        params = parameters or {}
        if "type" not in params:
            params = {"type": "object", "properties": params, "required": list(params)}
        _TOOLS[name or fn.__name__] = (description, json.dumps(params), fn)
        return fn

    return register


class Tool(exports.Tool):
    """The `ward:plugin/tool` export over the registered tools."""

    def list_tools(self):
        return [ToolInfo(n, d, p) for n, (d, p, _) in _TOOLS.items()]

    def execute(self, name, args, context):
        if name not in _TOOLS:
            raise Err(ToolError_InvalidArguments(f"no tool named {name}"))
        try:
            out = _TOOLS[name][2](json.loads(args), context)
        except Denied as e:
            raise Err(ToolError_Denied(str(e)))
        except InvalidArguments as e:
            raise Err(ToolError_InvalidArguments(str(e)))
        except KeyError as e:
            raise Err(ToolError_InvalidArguments(f"missing argument {e}"))
        except Exception as e:  # noqa: BLE001 - every failure goes back to the model
            raise Err(ToolError_Failed(f"{type(e).__name__}: {e}"))
        if not isinstance(out, Output):
            out = Output(str(out))
        return ToolOutput(out.title or name, out.output, json.dumps(out.metadata), [])
