// Ward's web page: sessions, a streamed chat, tool calls, permission asks.
// Everything a model, a tool or a plugin wrote is set with textContent: never HTML,
// and rendered inert first (see `inert`).
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  token: null,
  sessions: new Map(), // id -> session
  status: new Map(), // id -> "busy" | "idle" | "retry"
  current: null,
  messages: new Map(), // message id -> { info, parts: Map(part id -> part) }
  order: [], // message ids of the current session, in order
  asks: [], // pending permission asks, oldest first
  lastEventId: null,
  renderQueued: false,
};

// The token comes from the address after `#` (never sent to the server), then
// lives in this tab's sessionStorage; the address bar loses it.
function takeToken() {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem("ward-token", decodeURIComponent(m[1]));
    history.replaceState(null, "", location.pathname);
  }
  state.token = sessionStorage.getItem("ward-token");
}

async function api(method, path, body) {
  const headers = { Authorization: "Bearer " + state.token };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401) {
    askToken();
    throw new Error("unauthorized");
  }
  if (res.status === 204) return null;
  const data = await res.json();
  if (!res.ok) throw new Error((data && data.data && data.data.message) || res.statusText);
  return data;
}

function askToken() {
  if (!$("login").open) $("login").showModal();
}

// --- the event stream (fetch, so the token goes in a header) -----------------
async function listen() {
  for (;;) {
    try {
      const headers = { Authorization: "Bearer " + state.token };
      if (state.lastEventId) headers["Last-Event-ID"] = state.lastEventId;
      const res = await fetch("/event", { headers });
      if (res.status === 401) { askToken(); return; }
      if (!res.ok || !res.body) throw new Error("event stream: " + res.status);
      setConnected(true);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          onBlock(block);
        }
      }
    } catch (e) {
      console.warn(e);
    }
    setConnected(false);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

function onBlock(block) {
  let data = "";
  for (const line of block.split("\n")) {
    if (line.startsWith("id:")) state.lastEventId = line.slice(3).trim();
    else if (line.startsWith("data:")) data += line.slice(5).replace(/^ /, "");
  }
  if (!data) return;
  try {
    onEvent(JSON.parse(data));
  } catch (e) {
    console.warn("bad event", e);
  }
}

function onEvent(ev) {
  const p = ev.properties || {};
  switch (ev.type) {
    case "server.lagged":
      reload();
      break;
    case "session.created":
    case "session.updated":
      state.sessions.set(p.info.id, p.info);
      renderSessions();
      if (p.info.id === state.current) renderHeader();
      break;
    case "session.deleted":
      state.sessions.delete(p.info.id);
      renderSessions();
      break;
    case "session.status":
      state.status.set(p.sessionID, p.status.type);
      renderSessions();
      if (p.sessionID === state.current) renderHeader();
      break;
    case "message.updated":
      if (p.sessionID !== state.current) break;
      upsertMessage(p.info);
      queueRender();
      break;
    case "message.removed":
      if (p.sessionID !== state.current) break;
      state.messages.delete(p.messageID);
      state.order = state.order.filter((id) => id !== p.messageID);
      queueRender();
      break;
    case "message.part.updated": {
      if (p.sessionID !== state.current) break;
      const m = messageFor(p.part.messageID);
      m.parts.set(p.part.id, p.part);
      queueRender();
      break;
    }
    case "message.part.delta": {
      if (p.sessionID !== state.current) break;
      const m = messageFor(p.messageID);
      const part = m.parts.get(p.partID) ||
        { id: p.partID, messageID: p.messageID, sessionID: p.sessionID, type: "text", text: "" };
      part[p.field] = (part[p.field] || "") + p.delta;
      m.parts.set(p.partID, part);
      queueRender();
      break;
    }
    case "message.part.removed": {
      const m = state.messages.get(p.messageID);
      if (m) { m.parts.delete(p.partID); queueRender(); }
      break;
    }
    case "permission.asked":
      state.asks.push(p);
      showAsk();
      break;
    case "permission.replied":
      state.asks = state.asks.filter((a) => a.id !== p.requestID);
      showAsk();
      break;
  }
}

function messageFor(id) {
  let m = state.messages.get(id);
  if (!m) {
    m = { info: { id, role: "assistant" }, parts: new Map() };
    state.messages.set(id, m);
    state.order.push(id);
  }
  return m;
}

function upsertMessage(info) {
  const m = messageFor(info.id);
  m.info = info;
}

// --- rendering -----------------------------------------------------------------
// Text from a model, a tool, a file or a plugin is shown as the terminal shows it
// (host/term/src/inert.rs): a bidi embedding, override or isolate (U+202A–U+202E,
// U+2066–U+2069) or direction mark (U+200E, U+200F, U+061C) reorders what is
// shown — `evil\u202Etxt.sh` reads as `evilhs.txt` — and the other controls and
// invisible format characters hide text or make two names look alike. Each becomes
// a visible escape in the terminal's notation (`\u{202e}`, `\x1b`), so the reader
// sees that something was there. ZWJ and ZWNJ stay (emoji, Persian, Indic
// scripts), and so do the tags of a well-formed subdivision flag.
const HAZARD =
  /\u{1F3F4}(?:[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{2,7}\u{E007F})?|\r\n|[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u034F\u115F\u1160\u17B4\u17B5\u3164\uFFA0]/gu;

function escapeChar(c) {
  if (c === "\n") return "\\n";
  if (c === "\r") return "\\r";
  const code = c.codePointAt(0);
  if (code < 0x80) return "\\x" + code.toString(16).padStart(2, "0");
  return "\\u{" + code.toString(16) + "}";
}

function render(text, oneLine) {
  return String(text).replace(HAZARD, (found) => {
    if (found.codePointAt(0) === 0x1f3f4) return found; // a flag, or the flag alone
    if (found === "\u200c" || found === "\u200d" || found === "\t") return found;
    if (!oneLine && (found === "\n" || found === "\r\n")) return found;
    return [...found].map(escapeChar).join("");
  });
}

// Multi-line text (an answer, a tool's output): line breaks and tabs stay.
function inert(text) {
  return render(text, false);
}

// One line (a title, a name, a question): line breaks are escaped too, so the
// value cannot pass for lines of the page's own.
function inertLine(text) {
  return render(text, true);
}

// Every text set through here is rendered inert (again, harmlessly: an escape is
// plain ASCII, so one-line values may be passed through `inertLine` first).
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = inert(text);
  return e;
}

function setConnected(on) {
  $("connection").textContent = on ? "connected" : "offline";
  $("connection").className = on ? "" : "off";
}

function renderSessions() {
  const list = $("sessions");
  list.replaceChildren();
  const sessions = [...state.sessions.values()]
    .filter((s) => !s.parentID)
    .sort((a, b) => b.time.updated - a.time.updated);
  for (const s of sessions) {
    const li = el("li", "", inertLine(s.title || s.id));
    li.dataset.id = s.id;
    if (s.id === state.current) li.classList.add("current");
    if (state.status.get(s.id) === "busy") li.classList.add("busy");
    li.onclick = () => select(s.id);
    list.append(li);
  }
}

function renderHeader() {
  const s = state.sessions.get(state.current);
  $("session-title").textContent = s ? inertLine(s.title || s.id) : "No session";
  const busy = state.status.get(state.current) === "busy";
  $("session-status").textContent = busy ? "working…" : "";
  $("abort").disabled = !busy;
}

function queueRender() {
  if (state.renderQueued) return;
  state.renderQueued = true;
  requestAnimationFrame(() => {
    state.renderQueued = false;
    renderMessages();
  });
}

function renderMessages() {
  const box = $("messages");
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  const open = new Set([...box.querySelectorAll("details[open]")].map((d) => d.dataset.id));
  box.replaceChildren();
  for (const id of state.order) {
    const m = state.messages.get(id);
    if (!m) continue;
    const div = el("div", "message " + (m.info.role || ""));
    div.dataset.id = id;
    div.append(el("div", "role", m.info.role === "user" ? "you" : inertLine(m.info.agent || "assistant")));
    for (const part of m.parts.values()) {
      const node = renderPart(part, open);
      if (node) div.append(node);
    }
    if (m.info.error) div.append(el("div", "error", m.info.error.data ? m.info.error.data.message : m.info.error.name));
    box.append(div);
  }
  if (atBottom) box.scrollTop = box.scrollHeight;
}

function renderPart(part, open) {
  switch (part.type) {
    case "text":
      if (part.synthetic || part.ignored) return null;
      return el("div", "part-text", part.text || "");
    case "reasoning": {
      const d = el("details", "reasoning");
      d.dataset.id = part.id;
      d.open = open.has(part.id);
      d.append(el("summary", "", "Thinking"), el("pre", "", part.text || ""));
      return d;
    }
    case "tool": {
      const st = part.state || {};
      const d = el("details", "tool");
      d.dataset.id = part.id;
      d.dataset.status = st.status || "pending";
      d.dataset.tool = part.tool;
      d.open = open.has(part.id);
      const title = st.title ? " — " + st.title : "";
      d.append(el("summary", "", inertLine(part.tool + title + " [" + (st.status || "pending") + "]")));
      d.append(el("pre", "tool-input", JSON.stringify(st.input || {}, null, 2)));
      if (st.status === "completed") d.append(el("pre", "tool-output", st.output || ""));
      if (st.status === "error") d.append(el("pre", "tool-output error", st.error || ""));
      return d;
    }
    default:
      return null;
  }
}

function showAsk() {
  const dialog = $("permission");
  const ask = state.asks[0];
  if (!ask) {
    if (dialog.open) dialog.close();
    return;
  }
  dialog.dataset.id = ask.id;
  // A plugin's own question says so: what it shows is the plugin's text, and the
  // answer applies to that plugin alone, never to a tool of the same name.
  const who = ask.plugin ? "Plugin " + ask.plugin + " asks — " : "";
  $("perm-what").textContent = inertLine(who + ask.permission + ": " + (ask.patterns || []).join(", "));
  // The engine names the file a question is about as `filepath`, whatever the tool
  // calls its argument.
  const detail = ask.metadata && (ask.metadata.diff || ask.metadata.command || ask.metadata.filepath || ask.metadata.description);
  $("perm-detail").textContent = detail ? (ask.plugin ? "(from the plugin) " : "") + inert(detail) : "";
  $("perm-feedback").value = "";
  if (!dialog.open) dialog.showModal();
}

async function answer(reply) {
  const id = $("permission").dataset.id;
  const body = { reply };
  const feedback = $("perm-feedback").value.trim();
  if (reply === "reject" && feedback) body.message = feedback;
  state.asks = state.asks.filter((a) => a.id !== id);
  showAsk();
  try {
    await api("POST", "/permission/" + encodeURIComponent(id) + "/reply", body);
  } catch (e) {
    alert(inertLine(e.message));
  }
}

// --- actions -------------------------------------------------------------------
async function select(id) {
  state.current = id;
  state.messages = new Map();
  state.order = [];
  renderSessions();
  renderHeader();
  const messages = await api("GET", "/session/" + encodeURIComponent(id) + "/message");
  for (const m of messages) {
    const entry = messageFor(m.info.id);
    entry.info = m.info;
    for (const p of m.parts) entry.parts.set(p.id, p);
  }
  renderMessages();
}

async function reload() {
  const [sessions, status, asks] = await Promise.all([
    api("GET", "/session"),
    api("GET", "/session/status"),
    api("GET", "/permission"),
  ]);
  state.sessions = new Map(sessions.map((s) => [s.id, s]));
  state.status = new Map(Object.entries(status).map(([id, s]) => [id, s.type]));
  state.asks = asks;
  renderSessions();
  showAsk();
  if (state.current) await select(state.current);
}

async function send(ev) {
  ev.preventDefault();
  const text = $("prompt").value;
  if (!text.trim()) return;
  if (!state.current) {
    const s = await api("POST", "/session", { agent: $("agent").value || undefined });
    state.sessions.set(s.id, s);
    await select(s.id);
  }
  $("prompt").value = "";
  try {
    await api("POST", "/session/" + encodeURIComponent(state.current) + "/prompt_async", {
      parts: [{ type: "text", text }],
      agent: $("agent").value || undefined,
    });
  } catch (e) {
    alert(inertLine(e.message));
  }
}

async function start() {
  takeToken();
  if (!state.token) { askToken(); return; }
  const agents = await api("GET", "/agent");
  const picker = $("agent");
  picker.replaceChildren();
  for (const a of agents.filter((a) => a.mode !== "subagent" && !a.hidden)) {
    const o = el("option", "", inertLine(a.name));
    o.value = a.name;
    picker.append(o);
  }
  listen();
  await reload();
}

$("composer").addEventListener("submit", send);
$("prompt").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey) send(e);
});
$("new-session").onclick = async () => {
  const s = await api("POST", "/session", { agent: $("agent").value || undefined });
  state.sessions.set(s.id, s);
  await select(s.id);
};
$("abort").onclick = () => api("POST", "/session/" + encodeURIComponent(state.current) + "/abort");
$("perm-once").onclick = () => answer("once");
$("perm-always").onclick = () => answer("always");
$("perm-reject").onclick = () => answer("reject");
$("token-save").onclick = () => {
  sessionStorage.setItem("ward-token", $("token-input").value.trim());
  $("login").close();
  start();
};
start().catch((e) => console.warn(e));
