// Drives `ward acp` with the official ACP client library, as an editor would, and
// prints what happened as one JSON transcript on stdout (tests/e2e/acp.rs asserts on
// it). The `ward` binary is $WARD_BIN; the project is the current directory.
//
//   1. initialize; session/new; a prompt whose tool call asks permission (answered
//      "allow once") and whose `todowrite` call makes a plan; set_mode to another
//      primary agent, and to one that is not;
//   2. a prompt to a model that never answers, a second prompt to the busy session
//      (refused), session/cancel (the first ends "cancelled"), a prompt to an
//      unknown session (refused);
//   3. a second connection loads the session: its history comes back as updates.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const ward = process.env.WARD_BIN;
const cwd = process.cwd();

/// Runs `op` on a fresh `ward acp`, recording updates and permission requests.
async function connect(record, op) {
  const child = spawn(ward, ["acp"], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const app = acp
    .client({ name: "ward-acp-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      record.updates.push({ phase: record.phase, ...params });
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      record.permissions.push(params);
      const allow = params.options.find((o) => o.kind === "allow_once");
      return { outcome: { outcome: "selected", optionId: allow.optionId } };
    });
  const result = await app.connectWith(stream, op);
  child.stdin.end();
  record.exitCode = await exited;
  return result;
}

/// A refused request as {code, message}; a request that succeeded as {ok}.
async function outcome(promise) {
  try {
    return { ok: await promise };
  } catch (e) {
    return { code: e.code, message: e.message, data: e.data };
  }
}

const text = (t) => [{ type: "text", text: t }];
const first = { phase: "", updates: [], permissions: [] };
const out = { first };

await connect(first, async (ctx) => {
  first.phase = "initialize";
  out.initialize = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  first.phase = "new";
  out.newSession = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const sessionId = out.newSession.sessionId;

  first.phase = "tool";
  out.toolPrompt = await ctx.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: text("read a.txt"),
  });

  first.phase = "mode";
  out.setMode = await outcome(
    ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" }),
  );
  out.badMode = await outcome(
    ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "no-such-agent" }),
  );
  await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "build" });

  first.phase = "cancel";
  const hanging = ctx.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: text("wait for it"),
  });
  out.busy = await outcome(
    ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: text("me too") }),
  );
  await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
  out.cancelled = await outcome(hanging);

  first.phase = "unknown";
  out.unknown = await outcome(
    ctx.request(acp.methods.agent.session.prompt, {
      sessionId: "ses_no_such_session",
      prompt: text("hello?"),
    }),
  );
  out.sessionId = sessionId;
});

const second = { phase: "load", updates: [], permissions: [] };
out.second = second;
await connect(second, async (ctx) => {
  await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  out.load = await outcome(
    ctx.request(acp.methods.agent.session.load, {
      sessionId: out.sessionId,
      cwd,
      mcpServers: [],
    }),
  );
});

process.stdout.write(JSON.stringify(out) + "\n");
