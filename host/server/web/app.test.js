// Runs the page's own script (app.js, unchanged) in node with a minimal stand-in
// for the DOM, for the Rust test in src/web_tests.rs; not served.
//
// Reads `{"cases": [text, ...]}` on standard input and prints
// `{"text": [inert(text), ...], "line": [inertLine(text), ...]}`, for the Rust
// side to compare with the terminal's `ward_term::inert` and `inert_line`. Then
// checks that what the page renders from a model, a tool, a session title and a
// permission question goes through them: exits non-zero, naming the check, if not.
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

function element(tag) {
  return {
    tag,
    className: "",
    textContent: "",
    value: "",
    open: false,
    dataset: {},
    children: [],
    classList: { add() {} },
    append(...nodes) { this.children.push(...nodes); },
    replaceChildren(...nodes) { this.children = nodes; },
    addEventListener() {},
    querySelectorAll() { return []; },
    showModal() { this.open = true; },
    close() { this.open = false; },
  };
}

const byId = new Map();
const context = vm.createContext({
  document: {
    getElementById(id) {
      if (!byId.has(id)) byId.set(id, element("#" + id));
      return byId.get(id);
    },
    createElement: element,
  },
  // No token: the script asks for one and stops, touching no network.
  location: { hash: "", pathname: "/" },
  history: { replaceState() {} },
  sessionStorage: { getItem() { return null; }, setItem() {} },
  requestAnimationFrame() {},
  alert() {},
  fetch() { throw new Error("no network here"); },
  setTimeout,
  console,
});
vm.runInContext(fs.readFileSync(path.join(__dirname, "app.js"), "utf8"), context, {
  filename: "app.js",
});
const run = (code) => vm.runInContext(code, context);

const input = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify({
  text: input.cases.map((c) => context.inert(c)),
  line: input.cases.map((c) => context.inertLine(c)),
}));

// Every text the page shows, flattened, of a rendered node.
const texts = (node) => [node.textContent, ...node.children.flatMap(texts)].join("|");
const RLO = "\u202e";
const check = (what, shown, expected) => {
  assert.ok(!/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/u.test(shown), what + ": raw bidi control in " + JSON.stringify(shown));
  assert.ok(shown.includes(expected), what + ": " + JSON.stringify(shown) + " lacks " + JSON.stringify(expected));
};

const open = new Set();
check("a model's text", texts(context.renderPart({ type: "text", text: "evil" + RLO + "txt.sh" }, open)), "evil\\u{202e}txt.sh");
check("reasoning", texts(context.renderPart({ id: "r", type: "reasoning", text: "a\u2067b" }, open)), "a\\u{2067}b");
const tool = context.renderPart({
  id: "t",
  type: "tool",
  tool: "read",
  state: { status: "completed", title: "x\u2066.md", input: { filePath: "a" + RLO + "b" }, output: "line\u200f\n" },
}, open);
check("a tool's title", texts(tool), "x\\u{2066}.md");
check("a tool's input", texts(tool), "a\\u{202e}b");
check("a tool's output", texts(tool), "line\\u{200f}\n");
check("a tool's error", texts(context.renderPart({ id: "e", type: "tool", tool: "bash", state: { status: "error", error: "no\u061cpe" } }, open)), "no\\u{61c}pe");

run(`state.sessions.set("s1", { id: "s1", title: "report${RLO}fdp.exe\\nforged", time: { updated: 1 } });
     state.current = "s1";
     renderSessions();
     renderHeader();`);
check("a session title in the list", texts(context.document.getElementById("sessions")), "report\\u{202e}fdp.exe\\nforged");
check("the session's header", context.document.getElementById("session-title").textContent, "report\\u{202e}fdp.exe\\nforged");

run(`state.asks = [{ id: "p1", permission: "bash", patterns: ["rm -rf ${RLO}/"], metadata: { command: "echo \\u200e1" } }];
     showAsk();`);
check("a permission's patterns", context.document.getElementById("perm-what").textContent, "bash: rm -rf \\u{202e}/");
check("a permission's command", context.document.getElementById("perm-detail").textContent, "echo \\u{200e}1");
