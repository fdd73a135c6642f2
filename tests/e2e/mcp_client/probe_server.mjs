// A small MCP server over stdio, hand-rolled (no SDK: nothing to install) for the
// MCP client tests. Its tools try what a stranger's server might: read a file, write
// one, open a connection, read its environment. `node probe_server.mjs MODE` makes it
// hostile: `garbage` (lines that are not JSON-RPC), `oversized` (a 9 MiB message),
// `badschema` (tools whose schema is not an object).
import { createInterface } from "node:readline";
import * as fs from "node:fs";
import * as net from "node:net";

const mode = process.argv[2] || "normal";
const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");
const text = (t) => ({ content: [{ type: "text", text: t }] });
const obj = (props) => ({ type: "object", properties: props });
let tools = [
  { name: "read_file", description: "Read a file", inputSchema: obj({ path: { type: "string" } }) },
  { name: "write_file", description: "Write a file", inputSchema: obj({ path: { type: "string" }, content: { type: "string" } }) },
  { name: "connect", description: "Connect to 127.0.0.1:port", inputSchema: obj({ port: { type: "number" } }) },
  { name: "env", description: "The environment", inputSchema: obj({}) },
  { name: "add_tool", description: "Adds the tool `late`", inputSchema: obj({}) },
  { name: "sleep", description: "Sleeps ms, writing MARKER when cancelled", inputSchema: obj({ ms: { type: "number" }, marker: { type: "string" } }) },
  { name: "huge", description: "Answers with a 9 MiB message", inputSchema: obj({}) },
  { name: "garbage_reply", description: "Answers with garbage", inputSchema: obj({}) },
];
if (mode === "badschema") {
  tools.push({ name: "string_schema", description: "bad", inputSchema: "a string" });
  tools.push({ name: "typed_string", description: "bad", inputSchema: { type: "string" } });
}
const sleeping = new Map();

async function call(name, args, id) {
  try {
    switch (name) {
      case "read_file": return text(fs.readFileSync(args.path, "utf8"));
      case "write_file": fs.writeFileSync(args.path, args.content ?? ""); return text("written");
      case "connect":
        return await new Promise((resolve) => {
          const s = net.connect({ host: "127.0.0.1", port: args.port }, () => { s.end(); resolve(text("connected")); });
          s.on("error", (e) => resolve(text("error: " + e.code)));
        });
      case "env": return text(JSON.stringify(process.env));
      case "add_tool":
        tools.push({ name: "late", description: "A tool added late", inputSchema: obj({}) });
        send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
        return text("added");
      case "late": return text("late tool answered");
      case "sleep":
        return await new Promise((resolve) => {
          const t = setTimeout(() => resolve(text("slept")), args.ms);
          sleeping.set(String(id), () => { clearTimeout(t); fs.writeFileSync(args.marker, "cancelled " + id); });
        });
      case "huge": process.stdout.write('{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":{"content":[{"type":"text","text":"' + "x".repeat(9 * 1024 * 1024) + '"}]}}\n'); return null;
      case "garbage_reply": process.stdout.write("{\"jsonrpc\": \"2.0\", \"id\": " + JSON.stringify(id) + ", \"result\": \n"); return null;
      default: return { content: [{ type: "text", text: "unknown tool " + name }], isError: true };
    }
  } catch (e) {
    return text("error: " + (e.code || e.message));
  }
}

if (mode === "garbage") process.stdout.write("this is not json\n");
createInterface({ input: process.stdin }).on("line", async (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg.method === "initialize") {
    if (mode === "garbage") process.stdout.write("{\"half\": \n");
    send({ jsonrpc: "2.0", id: msg.id, result: {
      protocolVersion: msg.params.protocolVersion,
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: "probe", version: "1.0.0" } } });
  } else if (msg.method === "tools/list") {
    send({ jsonrpc: "2.0", id: msg.id, result: { tools } });
  } else if (msg.method === "tools/call") {
    const result = await call(msg.params.name, msg.params.arguments || {}, msg.id);
    if (result) send({ jsonrpc: "2.0", id: msg.id, result });
  } else if (msg.method === "notifications/cancelled") {
    const cancel = sleeping.get(String(msg.params.requestId));
    if (cancel) cancel();
  } else if (msg.method === "ping") {
    send({ jsonrpc: "2.0", id: msg.id, result: {} });
  } else if (msg.id !== undefined) {
    send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "no such method" } });
  }
});
