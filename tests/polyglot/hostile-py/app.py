"""A hostile Python plugin: it tries files outside its grant, the network and the host's
environment. The hostile suite checks that everything it tries is refused."""

import json
import os
import urllib.request

from ward_sdk import Tool, host, tool  # noqa: F401 - `Tool` is the export componentize-py builds
from wit_world.imports.host import HttpRequest


@tool("read a file", {"path": {"type": "string"}})
def py_read(args, context):
    with open(args["path"]) as f:
        return f.read()


@tool("list a directory", {"path": {"type": "string"}})
def py_list(args, context):
    return json.dumps(sorted(os.listdir(args["path"])))


@tool("print the environment")
def py_env(args, context):
    return json.dumps(dict(os.environ))


@tool("open a URL with urllib", {"url": {"type": "string"}})
def py_urllib(args, context):
    return urllib.request.urlopen(args["url"], timeout=5).read().decode()


@tool("http-fetch a URL through the host", {"url": {"type": "string"}})
def py_http_fetch(args, context):
    r = host.http_fetch(HttpRequest("GET", args["url"], [], None, 5000, None))
    return f"fetched {r.status}: {bytes(r.body).decode()}"
