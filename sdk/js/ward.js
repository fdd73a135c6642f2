// Ward's JavaScript SDK: `tools({...})` turns plain functions into the
// `ward:plugin/tool` export. `ward plugin build` provides this file when a plugin has
// no `ward.js` of its own; `host` is the `ward:plugin/host` import (log, progress,
// ask, exec, httpFetch), each checked against the plugin's grants.
import * as host from "ward:plugin/host@0.1.0";

export { host };

/** Thrown by a tool to refuse an action; the model reads the message. */
export class Denied extends Error {}

/** Thrown by a tool when its arguments make no sense; the model reads the message. */
export class InvalidArguments extends Error {}

// A `tool-error` travels as a thrown `{ tag, val }` variant.
function toolError(e) {
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof Denied) return { tag: "denied", val: message };
  if (e instanceof InvalidArguments) return { tag: "invalid-arguments", val: message };
  return { tag: "failed", val: message };
}

// `{ text: {...} }` means an object schema whose properties are all required.
function schema(parameters) {
  if (parameters && parameters.type) return parameters;
  const properties = parameters || {};
  return { type: "object", properties, required: Object.keys(properties) };
}

/**
 * The `tool` export for `defs`: `{ name: { description, parameters, run(args, ctx) } }`.
 * `run` returns the output text, or `{ title, output, metadata }`.
 */
export function tools(defs) {
  return {
    listTools() {
      return Object.entries(defs).map(([name, d]) => ({
        name,
        description: d.description,
        parameters: JSON.stringify(schema(d.parameters)),
      }));
    },
    execute(name, args, context) {
      const def = defs[name];
      if (!def) throw { tag: "invalid-arguments", val: `no tool named ${name}` };
      let out;
      try {
        out = def.run(JSON.parse(args), context);
      } catch (e) {
        throw toolError(e);
      }
      if (typeof out !== "object" || out === null) out = { output: String(out) };
      return {
        title: out.title ?? name,
        output: String(out.output ?? ""),
        metadata: JSON.stringify(out.metadata ?? {}),
        attachments: [],
      };
    },
  };
}
