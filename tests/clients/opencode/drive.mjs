// Drives `ward serve` with the official OpenCode SDK (@opencode-ai/sdk, its v2 client,
// whose routes and shapes are those of opencode-1.18's server), as an OpenCode client
// would: health, a session, the event stream, a synchronous prompt whose tool call asks
// permission (answered "always" from the stream), the messages, then an asynchronous
// prompt aborted mid-stream. Prints one JSON transcript on stdout for the Rust test to
// check; exits non-zero with the reason on anything unexpected.
import { createOpencodeClient } from "@opencode-ai/sdk/v2/client";

const client = createOpencodeClient({
  baseUrl: process.env.WARD_URL,
  headers: { Authorization: `Bearer ${process.env.WARD_TOKEN}` },
});

function fail(why) {
  console.error("drive.mjs: " + why);
  process.exit(2);
}

function data(result, what) {
  if (result.error !== undefined || result.data === undefined) {
    fail(`${what}: ${JSON.stringify(result.error ?? null)} (HTTP ${result.response?.status})`);
  }
  return result.data;
}

const seen = [];
async function until(predicate, what, ms = 30000) {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) fail(`timed out waiting for ${what}; saw ${JSON.stringify(seen.map((e) => e.type))}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const health = data(await client.global.health(), "health");
const session = data(await client.session.create({ title: "from the sdk" }), "session.create");

const events = await client.event.subscribe();
const replies = [];
const consuming = (async () => {
  for await (const event of events.stream) {
    seen.push(event);
    if (event.type === "permission.asked" && event.properties.sessionID === session.id) {
      const answered = await client.permission.reply({ requestID: event.properties.id, reply: "always" });
      replies.push(data(answered, "permission.reply"));
    }
  }
})();
await until(() => seen.some((e) => e.type === "server.connected"), "server.connected");

const idles = () => seen.filter((e) => e.type === "session.idle" && e.properties.sessionID === session.id).length;

// 1: a synchronous prompt; its tool call asks, and the stream's consumer answers.
const answer = data(
  await client.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "read a.txt" }] }),
  "session.prompt",
);
await until(() => idles() >= 1, "the first session.idle");
const messages = data(await client.session.messages({ sessionID: session.id }), "session.messages");

// 2: an asynchronous prompt whose model never answers, aborted once it runs.
const busyBefore = seen.filter((e) => e.type === "session.status" && e.properties.status.type === "busy").length;
const queued = await client.session.promptAsync({
  sessionID: session.id,
  parts: [{ type: "text", text: "hang" }],
});
if (queued.error !== undefined || queued.response.status !== 204) {
  fail(`session.promptAsync: ${JSON.stringify(queued.error ?? null)} (HTTP ${queued.response.status})`);
}
await until(
  () => seen.filter((e) => e.type === "session.status" && e.properties.status.type === "busy").length > busyBefore,
  "the second prompt's busy status",
);
await new Promise((r) => setTimeout(r, Number(process.env.ABORT_AFTER_MS ?? 300)));
const aborted = data(await client.session.abort({ sessionID: session.id }), "session.abort");
await until(() => idles() >= 2, "the second session.idle");
const after = data(await client.session.messages({ sessionID: session.id }), "session.messages (after)");
const listed = data(await client.session.list(), "session.list");

console.log(
  JSON.stringify({
    health,
    session,
    answer,
    replies,
    messages,
    aborted,
    after,
    listed: listed.map((s) => s.id),
    events: seen.map((e) => ({ type: e.type, properties: e.properties })),
  }),
);
process.exit(0);
