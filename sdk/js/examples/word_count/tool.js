import { tools } from "./ward.js";

export const tool = tools({
  word_count: {
    description: "Count the lines, words and characters of a text.",
    parameters: { text: { type: "string", description: "The text to count." } },
    run({ text }) {
      const words = text.split(/\s+/).filter(Boolean).length;
      const lines = text === "" ? 0 : text.split("\n").length;
      const chars = [...text].length;
      return { title: `${words} words`, output: `${lines} lines, ${words} words, ${chars} characters`, metadata: { lines, words, chars } };
    },
  },
});
