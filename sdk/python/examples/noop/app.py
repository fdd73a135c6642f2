"""Does nothing, quickly: the Python side of the no-op benchmark."""

from ward_sdk import Tool, tool  # noqa: F401 - `Tool` is the export componentize-py builds


@tool("Does nothing.")
def noop_py(args, context):
    return "ok"
