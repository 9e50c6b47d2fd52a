/**
 * `auth-required` end to end with real processes: `agentd serve --http 127.0.0.1:0 --a2a` whose MCP server
 * is the protected MCP server (the official SDK's server checking JWTs of a real `oidc-provider` on
 * 127.0.0.1). The login the agent had is revoked and cannot be refreshed; the official `@a2a-js/sdk` client
 * sees the task AUTH_REQUIRED with the server and `agentd auth login api` named; the test runs that command
 * headlessly (playing the person at the browser), says so on the task, and the task completes with the tool's
 * answer under the new grant. (Serve connects its MCP servers on the first run: here the connection itself
 * waits for the authorization; the SDK test covers the listing and a deadline.)
 */
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ClientFactory } from "@a2a-js/sdk/client";
import { Role, TaskState } from "@a2a-js/sdk";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { followLogin, type OidcProvider, startOidcProvider } from "@agentd/test-support/oidc-provider";
import { type ProtectedMcp, startProtectedMcp } from "@agentd/test-support/protected-mcp";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { startAgentd, stopAll } from "./__fixtures__/agentd-process.ts";
import { modelEnv } from "./__fixtures__/scripts.ts";

setDefaultTimeout(90_000);

let oidc: OidcProvider;
let mcp: ProtectedMcp;
let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
beforeAll(async () => {
  let issuer = "";
  mcp = startProtectedMcp(() => issuer);
  oidc = await startOidcProvider(() => mcp.url);
  issuer = oidc.issuer;
});
afterEach(async () => {
  await stopAll();
  await gateway?.close();
  ws?.cleanup();
  ws = undefined;
  gateway = undefined;
});
afterAll(async () => {
  await mcp?.stop();
  await oidc?.stop();
});

/** `agentd auth login api --no-browser`, the test following the printed URL as the person would. */
async function login(env: Record<string, string>): Promise<void> {
  const proc = Bun.spawn([process.execPath, CLI_MAIN, "auth", "login", "api", "--no-browser"], {
    cwd: ws!.dir,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, ...env, NO_COLOR: "1", AGENT_LOG_LEVEL: "" },
  });
  try {
    let stderr = "";
    let followed: Promise<Response> | undefined;
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of proc.stderr) {
        stderr += decoder.decode(chunk, { stream: true });
        const url = /^\s+(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m.exec(stderr)?.[1];
        if (url && !followed) followed = followLogin(url, "alice");
      }
    })();
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    await reading;
    expect(code === 0 ? stdout : stderr).toContain("logged in to api");
    expect((await followed!).status).toBe(200);
  } finally {
    proc.kill("SIGKILL");
    await proc.exited;
  }
}

const userMessage = (text: string, ids: { taskId?: string; contextId?: string } = {}) => ({
  message: {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text" as const, value: text }, metadata: undefined, filename: "", mediaType: "" }],
    contextId: ids.contextId ?? "",
    taskId: ids.taskId ?? "",
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  tenant: "",
  configuration: undefined,
  metadata: undefined,
});

test("a served task waits in AUTH_REQUIRED for `agentd auth login api`, then the tool call succeeds and the task completes", async () => {
  ws = new CliWorkspace();
  ws.writeConfig({ mcpServers: { api: { url: mcp.url, oauth: { clientId: "cli" } } } });
  const store = join(ws.dir, "oauth.json");
  const env = { AGENTD_OAUTH_STORE: store };
  await login(env);
  // The grant is revoked at the resource and cannot be refreshed: only a person's new grant helps.
  const doc = JSON.parse(readFileSync(store, "utf8")) as { tokens: Record<string, { accessToken: string; refreshToken?: string }> };
  const first = Object.values(doc.tokens)[0]!.accessToken;
  for (const t of Object.values(doc.tokens)) delete t.refreshToken;
  writeFileSync(store, JSON.stringify(doc), { mode: 0o600 });

  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: req.tools.find((n) => n.endsWith("whoami"))!, arguments: {} }] }),
      (req) => ({ text: `api says: ${req.lastToolResult ?? "nothing"}` }),
    ],
  });
  const agentd = startAgentd(["serve", "--http", "127.0.0.1:0", "--a2a"], { cwd: ws.dir, env: { ...modelEnv(gateway), ...env } });
  const [listening] = await agentd.waitFor("serve.listening");
  mcp.revoked.add(first);
  const client = await new ClientFactory().createFromUrl(new URL(String(listening!.a2a)).origin);

  const task = await client.sendMessage(userMessage("who am I at api?"));
  if (!("status" in task)) throw new Error("expected a task");
  expect(task.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
  const said = task.status?.message?.parts[0]?.content;
  expect(said?.$case === "text" ? said.value : "").toContain("MCP server 'api' needs authorization: run `agentd auth login api`");
  expect(JSON.stringify(task)).not.toContain(first);

  await login(env);
  const done = await client.sendMessage(userMessage("logged in", { taskId: task.id, contextId: task.contextId }));
  if (!("status" in done)) throw new Error("expected a task");
  expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  const answer = done.artifacts[0]?.parts[0]?.content;
  expect(answer?.$case === "text" ? answer.value : "").toContain('{"sub":"alice","client_id":"cli"');
});
