// Does nothing, quickly: the JavaScript side of the no-op benchmark.
import { tools } from "./ward.js";

export const tool = tools({
  noop_js: { description: "Does nothing.", run: () => "ok" },
});
