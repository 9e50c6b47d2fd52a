/**
 * A child process serving the served agent over Streamable HTTP on 127.0.0.1:0, for tests that measure the
 * server from outside (RSS) or need it in its own process. The runner answers at once with
 * `ANSWER_BYTES` bytes of text. Options of the HTTP server come as JSON in `SERVE_OPTIONS` (limits, auth),
 * of the served agent in `SERVED_OPTIONS`.
 *
 * It prints one JSON line `{"url": …}` on stdout when listening, then answers lines on stdin: `gc` → a full
 * collection, then `{"rss": bytes}` (the resident set after it); `stats` → the server's counters.
 */
import { createServedMcp, type ServedRunner } from "../served-mcp.ts";
import { createStreamableHttpServer } from "../../transport/http-server/index.ts";

const answerBytes = Number(process.env.ANSWER_BYTES ?? "16");
const runner: ServedRunner = {
  async run(input, { runId }) {
    const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
    // A fresh string per run: a large answer must be the server's to keep or drop, not a shared constant.
    const text = `${input}:`.padEnd(answerBytes, "x");
    return { text, usage, turns: 1, runId: runId!, stopReason: "final", toolCalls: 0 };
  },
};
const served = createServedMcp({ runner, ...JSON.parse(process.env.SERVED_OPTIONS ?? "{}") });
const server = await createStreamableHttpServer({
  ...JSON.parse(process.env.SERVE_OPTIONS ?? "{}"),
  onsession: (t) => served.server.connect(t).then(() => {}),
});
process.stdout.write(`${JSON.stringify({ url: server.url.href })}\n`);

let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
  buffered += chunk;
  let nl: number;
  while ((nl = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, nl).trim();
    buffered = buffered.slice(nl + 1);
    if (line === "gc") {
      Bun.gc(true);
      Bun.gc(true);
      process.stdout.write(`${JSON.stringify({ rss: process.memoryUsage().rss })}\n`);
    } else if (line === "stats") process.stdout.write(`${JSON.stringify(server.stats())}\n`);
  }
});
process.stdin.on("end", () => void server.close().then(() => process.exit(0)));
