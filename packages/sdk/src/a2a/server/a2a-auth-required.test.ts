/**
 * `auth-required` over A2A, with real parts: a real OpenID provider (`oidc-provider`) on 127.0.0.1, the
 * protected MCP server (the official SDK's server checking JWTs), an agent served over HTTP with A2A on and
 * the official `@a2a-js/sdk` client. The agent's stored token is revoked and cannot be refreshed; the
 * run's tool call needs a person's grant: the task goes AUTH_REQUIRED naming the server, the command and
 * where to authorize (never a token); another principal's follow-up is refused; the grant is then done
 * the way `agentd auth login` does it (the same SDK function, writing the token store), the owner says so,
 * agentd re-reads the store, retries and the task completes. The refusal may come while listing the tools
 * or in the tool call; an operator may answer too; 'done' with nothing done raises it again; 'cancel' gives
 * up (the model sees the error); unanswered, the deadline fails the task; a run not served over A2A fails
 * at once as before.
 */
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Role, TaskState } from "@a2a-js/sdk";
import { memoryLogger } from "../../log.ts";
import { callTools, reply, type Step } from "../../loop/__fixtures__/scripted-model.ts";
import { followLogin, type OidcProvider, startOidcProvider } from "@agentd/test-support/oidc-provider";
import { type ProtectedMcp, startProtectedMcp } from "@agentd/test-support/protected-mcp";
import { loginServer } from "../../transport/http-client/oauth/login.ts";
import { FileTokenStore } from "../../transport/http-client/oauth/token-store.ts";
import { officialClient, serveA2aAgent, type ServedAgent } from "../../agent/__fixtures__/a2a-agent.ts";

setDefaultTimeout(60_000);

const OWNER = "owner-token-0123456789ab";
const OTHER = "other-token-0123456789ab";
const OPS = "ops-token-0123456789abcdef";
let oidc: OidcProvider;
let mcp: ProtectedMcp;
let dir: string;
let s: ServedAgent | undefined;
const storeFile = () => join(dir, "oauth.json");
const savedStore = process.env.AGENTD_OAUTH_STORE;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentd-auth-required-"));
  let issuer = "";
  mcp = startProtectedMcp(() => issuer);
  oidc = await startOidcProvider(() => mcp.url);
  issuer = oidc.issuer;
  process.env.AGENTD_OAUTH_STORE = storeFile();
});
afterEach(async () => {
  await s?.close();
  s = undefined;
});
afterAll(async () => {
  if (savedStore === undefined) delete process.env.AGENTD_OAUTH_STORE;
  else process.env.AGENTD_OAUTH_STORE = savedStore;
  await mcp?.stop();
  await oidc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The grant `agentd auth login api` runs, the test playing the person at the browser; returns the new access token. */
async function login(): Promise<string> {
  let followed: Promise<Response> | undefined;
  await loginServer({
    server: "api",
    url: mcp.url,
    config: { clientId: "cli" },
    store: new FileTokenStore(storeFile()),
    onUrl: (u) => void (followed = followLogin(u.href, "alice")),
  });
  expect((await followed!).status).toBe(200);
  return tokens().accessToken;
}
const tokens = () =>
  Object.values(
    (JSON.parse(readFileSync(storeFile(), "utf8")) as { tokens: Record<string, { accessToken: string; refreshToken?: string }> }).tokens,
  )[0]!;

/** Log in, then revoke the token at the resource and drop the refresh token: only a new grant helps. */
async function revokedLogin(): Promise<string> {
  const token = await login();
  const doc = JSON.parse(readFileSync(storeFile(), "utf8"));
  for (const t of Object.values(doc.tokens) as { refreshToken?: string }[]) delete t.refreshToken;
  writeFileSync(storeFile(), JSON.stringify(doc), { mode: 0o600 });
  return token;
}

/** Call `api/whoami` (first running `before`), then answer with what it returned. */
const whoamiThenEcho = (before?: () => void): Step[] => [
  () => {
    before?.();
    return callTools([["api/whoami", {}]]);
  },
  (req) => {
    const last = req.messages.at(-1);
    return reply(last?.role === "tool" ? last.content.map((p) => p.output).join("\n") : "no tool result");
  },
];

async function serve(limits?: { deadlineMs: number }, beforeCall?: () => void) {
  const logger = memoryLogger();
  s = await serveA2aAgent({
    steps: whoamiThenEcho(beforeCall),
    logger,
    http: {
      auth: {
        bearerTokens: [
          { token: OWNER, name: "owner" },
          { token: OTHER, name: "other" },
          { token: OPS, name: "ops", role: "operator" },
        ],
      },
    },
    agent: { mcpServers: { api: { url: mcp.url, oauth: { clientId: "cli" } } }, limits },
  });
  await s.agent.connect();
  return logger;
}

const userMessage = (text: string, extra: { contextId?: string; taskId?: string } = {}) => ({
  message: {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text" as const, value: text }, metadata: undefined, filename: "", mediaType: "" }],
    contextId: extra.contextId ?? "",
    taskId: extra.taskId ?? "",
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  tenant: "",
  configuration: undefined,
  metadata: undefined,
});
const partsOf = (task: { status?: { message?: { parts: { content?: { $case: string; value: unknown } }[] } } }) =>
  (task.status?.message?.parts ?? []).map((p) => p.content);

test("auth-required names the server and the command; another principal cannot answer; after the grant the owner's word resumes the run", async () => {
  const first = await revokedLogin();
  const logger = await serve();
  mcp.revoked.add(first);
  const owner = await officialClient(s!.base, "JSONRPC", OWNER);
  const task = (await owner.sendMessage(userMessage("who am I at api?"))) as any;
  expect(task.status.state === TaskState.TASK_STATE_AUTH_REQUIRED ? "auth-required" : JSON.stringify(task.status)).toBe("auth-required");
  const [words, data] = partsOf(task);
  expect(words!.value).toContain("MCP server 'api' needs authorization: run `agentd auth login api`");
  expect(data!.value).toMatchObject({
    server: "api",
    command: "agentd auth login api",
    resource: mcp.url,
    authorizationServer: `${oidc.issuer}/`,
  });
  expect(JSON.stringify(task)).not.toContain(first);

  const other = await officialClient(s!.base, "JSONRPC", OTHER);
  await expect(other.sendMessage(userMessage("done", { taskId: task.id, contextId: task.contextId }))).rejects.toThrow(/not found/i);
  expect(((await owner.getTask({ id: task.id, historyLength: undefined, tenant: "" })) as any).status.state).toBe(
    TaskState.TASK_STATE_AUTH_REQUIRED,
  );

  const second = await login();
  expect(second).not.toBe(first);
  const done = (await owner.sendMessage(userMessage("done, logged in", { taskId: task.id, contextId: task.contextId }))) as any;
  expect(done.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
  const text = done.artifacts[0].parts[0].content.value as string;
  expect(text).toContain('"sub":"alice"');
  expect(text).toContain('"client_id":"cli"');
  expect(mcp.authorizations.at(-1)).toBe(`Bearer ${second}`);
  expect(
    logger.records
      .filter((r) => r.event === "a2a.auth_required" || r.event === "a2a.authorized")
      .map((r) => [r.event, r.principal, r.server]),
  ).toEqual([
    ["a2a.auth_required", "bearer:owner", "api"],
    ["a2a.authorized", "bearer:owner", "api"],
  ]);
  expect(JSON.stringify(logger.records)).not.toContain(second);
});

test("unanswered, the wait ends with the run's deadline: the task fails", async () => {
  const first = await revokedLogin();
  await serve({ deadlineMs: 2_000 });
  mcp.revoked.add(first);
  const owner = await officialClient(s!.base, "JSONRPC", OWNER);
  const task = (await owner.sendMessage(userMessage("who am I at api?"))) as any;
  expect(task.status.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
  // Follow the waiting task until it ends.
  for await (const _ of owner.resubscribeTask({ id: task.id, tenant: "" }));
  const after = (await owner.getTask({ id: task.id, historyLength: undefined, tenant: "" })) as any;
  expect(after.status.state).toBe(TaskState.TASK_STATE_FAILED);
  expect(partsOf(after)[0]!.value).toContain("E_BUDGET_DEADLINE");
});

test("a run not served over A2A keeps failing the call at once with the login command", async () => {
  const first = await revokedLogin();
  await serve();
  mcp.revoked.add(first);
  await expect(s!.agent.run("who am I at api?")).rejects.toThrow(
    "needs a person to authorize agentd and no token is stored; run: agentd auth login api",
  );
});

test("a tool call refused after the tools were listed waits too; an operator may say the login is done", async () => {
  const first = await revokedLogin();
  // Revoked while the model decides, after the run listed the tools with the old token.
  await serve(undefined, () => mcp.revoked.add(first));
  const owner = await officialClient(s!.base, "JSONRPC", OWNER);
  const task = (await owner.sendMessage(userMessage("who am I at api?"))) as any;
  expect(task.status.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
  expect(partsOf(task)[1]!.value).toMatchObject({ server: "api", command: "agentd auth login api" });
  await login();
  const ops = await officialClient(s!.base, "JSONRPC", OPS);
  const done = (await ops.sendMessage(userMessage("done", { taskId: task.id, contextId: task.contextId }))) as any;
  expect(done.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(done.artifacts[0].parts[0].content.value).toContain('"sub":"alice"');
});

test("still unauthorized after 'done', the task is auth-required again; 'cancel' gives up and the model sees the error", async () => {
  const first = await revokedLogin();
  await serve(undefined, () => mcp.revoked.add(first));
  const owner = await officialClient(s!.base, "JSONRPC", OWNER);
  const task = (await owner.sendMessage(userMessage("who am I at api?"))) as any;
  expect(task.status.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
  const again = (await owner.sendMessage(
    userMessage("done (but nobody logged in)", { taskId: task.id, contextId: task.contextId }),
  )) as any;
  expect(again.status.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
  expect(again.status.message.messageId).not.toBe(task.status.message.messageId);
  const done = (await owner.sendMessage(userMessage("cancel", { taskId: task.id, contextId: task.contextId }))) as any;
  expect(done.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(done.artifacts[0].parts[0].content.value).toContain("agentd auth login api");
});

test("a v0.3 client (no A2A-Version header) sees the state as auth-required, and answers the same way", async () => {
  const first = await revokedLogin();
  await serve(undefined, () => mcp.revoked.add(first));
  const rpc = async (method: string, params: Record<string, unknown>) =>
    (
      await fetch(`${s!.base}/a2a`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${OWNER}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      })
    ).json() as Promise<any>;
  const message = (text: string, extra: Record<string, unknown> = {}) => ({
    message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text }], ...extra },
  });
  const sent = await rpc("message/send", message("who am I at api?"));
  expect(sent.result).toMatchObject({
    kind: "task",
    status: {
      state: "auth-required",
      message: { parts: [{ kind: "text", text: expect.stringContaining("agentd auth login api") }, { kind: "data" }] },
    },
  });
  await login();
  const done = await rpc("message/send", message("done", { taskId: sent.result.id, contextId: sent.result.contextId }));
  expect(done.result.status.state).toBe("completed");
});
