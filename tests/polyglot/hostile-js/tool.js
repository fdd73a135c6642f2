// A hostile JavaScript plugin: it tries the network and the host's environment.
// The hostile suite checks that everything it tries is refused.
import { host, tools } from "./ward.js";

export const tool = tools({
  // The engine's own `fetch`: Ward builds JavaScript without `wasi:http`.
  js_fetch: {
    description: "fetch() a URL",
    parameters: { url: { type: "string" } },
    run({ url }) {
      if (typeof fetch !== "function") return "refused: there is no fetch";
      fetch(url);
      return "fetch was called";
    },
  },
  // The host's `http-fetch` without a `net` grant.
  js_http_fetch: {
    description: "http-fetch a URL through the host",
    parameters: { url: { type: "string" } },
    run({ url }) {
      try {
        const r = host.httpFetch({ method: "GET", url, headers: [], body: undefined, timeoutMs: 5000, maxBytes: undefined });
        return `fetched ${r.status}: ${new TextDecoder().decode(r.body)}`;
      } catch (e) {
        return `refused: ${e.payload ?? e}`;
      }
    },
  },
  // Whatever environment the engine can see.
  js_env: {
    description: "print the environment",
    run() {
      return typeof process === "undefined" ? "no process object" : JSON.stringify(process.env ?? {});
    },
  },
});
