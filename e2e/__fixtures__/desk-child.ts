/**
 * One process of an agent that serves its approval desk on the local state directory (`XDG_STATE_HOME`, no
 * store server: every process started on it shares the questions and the waiting runs through the files),
 * for the tests of durable waits across processes. The agent (`createAgent`, the openai adapter against the
 * fake gateway, the fake MCP server over stdio) asks a person before `fs/delete_*`.
 *
 * - `serve [RUN_ID]`: serve over HTTP on 127.0.0.1 (which attaches the desk: this process resumes what is
 *   decided there); with RUN_ID, start that run, which waits at the desk, saved. Every log record and run
 *   event goes to stdout as one JSON line (`{"log":…}`, `{"event":…}`), then `{"ready":true}` once serving.
 *   Runs until killed.
 * - `decide`: approve every pending question of the desk as an operator, print `{"decided":[ids]}` and exit.
 *
 * Env: GATEWAY_URL, SERVER_CONFIG (the fake server's `{ command, args }`), XDG_STATE_HOME; TIMEOUT_MS
 * (`approvals.timeout`); LEASE_MS and RENEW_MS (the resume claim's lease, `durability.resumeLease`);
 * DIE_AFTER_CLAIM=1: SIGKILL itself as soon as it logs that it resumes a run (its claim written, no call made).
 */
import { createAgent, createLogger, type LogRecord } from "@agentd/sdk";
import { createModel } from "@agentd/adapters";
import { approvalDeskFromConfig } from "@agentd/sdk/agent";

const [mode, runId] = process.argv.slice(2);
const env = process.env;
const line = (x: unknown) => process.stdout.write(`${JSON.stringify(x)}\n`);
const logger = createLogger((record: LogRecord) => {
  line({ log: record });
  if (env.DIE_AFTER_CLAIM === "1" && record.event === "run.resumed") process.kill(process.pid, "SIGKILL");
});
const rules = [{ tool: "fs/delete_*", decision: "ask" as const }];
const timeout = env.TIMEOUT_MS ? Number(env.TIMEOUT_MS) : undefined;
const desk = approvalDeskFromConfig({ approvals: { rules, timeout } }, logger);
if (!desk) throw new Error("no desk");

if (mode === "decide") {
  const decided: string[] = [];
  for (const q of await desk.list({ operator: true, principal: "ops" }))
    if (q.state === "pending")
      decided.push((await desk.decide(q.request.id, { decision: "approve" }, { operator: true, principal: "ops" })).request.id);
  line({ decided });
  await desk.close();
} else {
  const agent = createAgent({
    model: createModel({ dialect: "openai", baseURL: env.GATEWAY_URL!, model: "m", apiKey: "k" }),
    mcpServers: { fs: JSON.parse(env.SERVER_CONFIG!) },
    approvals: { rules, desk, ...(timeout !== undefined ? { timeoutMs: timeout } : {}) },
    durability: env.LEASE_MS ? { resumeLease: { leaseMs: Number(env.LEASE_MS), renewMs: Number(env.RENEW_MS) } } : undefined,
    logger,
    onEvent: (event) => line({ event }),
  });
  await agent.serve({ http: { hostname: "127.0.0.1", port: 0 } });
  line({ ready: true });
  if (runId) line({ result: await agent.run("clean up", { runId }) });
  await new Promise(() => {});
}
