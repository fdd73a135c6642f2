// Answers the model's questions through `ward acp` with the official ACP client
// library, as an editor would (tests/e2e/acp_question.rs asserts on the transcript it
// prints). The `ward` binary is $WARD_BIN; the project is the current directory.
//
//   1. a prompt whose `question` call asks two questions: the client picks the last
//      option offered as an answer for each;
//   2. a prompt whose question the client dismisses.
// Every permission request is recorded with the phase it came in.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const ward = process.env.WARD_BIN;
const cwd = process.cwd();
const record = { phase: "", permissions: [], updates: [] };

const child = spawn(ward, ["acp"], { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const app = acp
  .client({ name: "ward-acp-question-test" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    record.updates.push({ phase: record.phase, ...params });
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    record.permissions.push({ phase: record.phase, ...params });
    const reject = params.options.find((o) => o.kind === "reject_once");
    const answers = params.options.filter((o) => o.kind === "allow_once");
    const pick = record.phase === "dismiss" ? reject : answers[answers.length - 1];
    return { outcome: { outcome: "selected", optionId: pick.optionId } };
  });

const out = { record };
await app.connectWith(stream, async (ctx) => {
  await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  record.phase = "answer";
  out.answered = await ctx.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "ask me" }],
  });
  record.phase = "dismiss";
  out.dismissed = await ctx.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "ask again" }],
  });
});
child.stdin.end();
out.exitCode = await exited;
process.stdout.write(JSON.stringify(out) + "\n");
