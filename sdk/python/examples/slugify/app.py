import re
import unicodedata

from ward_sdk import Tool, tool  # noqa: F401 - `Tool` is the export componentize-py builds


@tool(
    "Turn a title into a URL slug: lowercase ASCII words joined by hyphens.",
    {"text": {"type": "string", "description": "The title."}},
)
def slugify(args, context):
    text = unicodedata.normalize("NFKD", args["text"]).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
