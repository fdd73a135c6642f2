// Sends prompts with file parts and a variant to `ward serve` through the official
// OpenCode SDK (@opencode-ai/sdk, v2 client), as an OpenCode client attaches an image:
// a `data:` URL and a `file://` URL in one prompt with `variant`, then the refusals
// (text posing as an image, an http URL, an unknown variant). $WARD_PNG_URL is the
// image as a data: URL, $WARD_PNG_PATH its file. Prints one JSON transcript.
import { createOpencodeClient } from "@opencode-ai/sdk/v2/client";

const client = createOpencodeClient({
  baseUrl: process.env.WARD_URL,
  headers: { Authorization: `Bearer ${process.env.WARD_TOKEN}` },
});

function fail(why) {
  console.error("files.mjs: " + why);
  process.exit(2);
}

function data(result, what) {
  if (result.error !== undefined || result.data === undefined) {
    fail(`${what}: ${JSON.stringify(result.error ?? null)} (HTTP ${result.response?.status})`);
  }
  return result.data;
}

/// A refused call as {status, error}.
function refusal(result) {
  return { status: result.response?.status, error: result.error ?? null };
}

const session = data(await client.session.create({ title: "files" }), "session.create");
const text = { type: "text", text: "what are these?" };
const answer = data(
  await client.session.prompt({
    sessionID: session.id,
    variant: "high",
    parts: [
      text,
      { type: "file", mime: "image/png", filename: "inline.png", url: process.env.WARD_PNG_URL },
      { type: "file", mime: "image/png", url: "file://" + process.env.WARD_PNG_PATH },
    ],
  }),
  "session.prompt",
);
const messages = data(await client.session.messages({ sessionID: session.id }), "session.messages");

const notImage = refusal(
  await client.session.prompt({
    sessionID: session.id,
    parts: [
      text,
      {
        type: "file",
        mime: "image/png",
        filename: "fake.png",
        url: "data:image/png;base64," + Buffer.from("just text").toString("base64"),
      },
    ],
  }),
);
const http = refusal(
  await client.session.prompt({
    sessionID: session.id,
    parts: [text, { type: "file", mime: "image/png", url: "http://127.0.0.1:1/a.png" }],
  }),
);
const badVariant = refusal(
  await client.session.prompt({ sessionID: session.id, variant: "ultra", parts: [text] }),
);
const after = data(await client.session.messages({ sessionID: session.id }), "session.messages");

process.stdout.write(
  JSON.stringify({ session, answer, messages, notImage, http, badVariant, after: after.length }) + "\n",
);
