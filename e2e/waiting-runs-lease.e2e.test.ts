/**
 * Durable waits across real processes on one local state directory (no store server): agents serving their
 * approval desk (`__fixtures__/desk-child.ts`), the fake gateway over loopback HTTP, and the testkit's fake
 * MCP server over stdio — whose record file, shared by every process's server, is the server's own account
 * of what reached it.
 *
 * - A decision taken in one process is heard by another on the same directory, whose resumer resumes the run.
 * - A process killed (`kill -9`) while it resumes a run, its approved call in flight (the tool never answers):
 *   a new process takes the run over once the claim's lease lapses, and does not call the tool again — the
 *   model reads that whether the call was made is unknown.
 * - A process killed while it makes a call of a later turn (one that needed no decision): the takeover, its
 *   model making the same calls again, makes neither the approved call nor that one again.
 * - A process that died right after its claim, before the call: the run is taken over and the call made once.
 * - A question with a timeout posted by a process killed before it expires: a process started meanwhile
 *   decides it by the timeout at its deadline, and resumes the run.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeServerCommand, type RecordedRequest } from "@agentd/testkit";

const CHILD = join(import.meta.dir, "__fixtures__", "desk-child.ts");
/** A short lease, so a takeover comes within the test (the default is 30 s). */
const LEASE = { LEASE_MS: "1500", RENEW_MS: "300" };

type Line = Record<string, any>;

/** A child process of the fixture: its stdout lines as they come, and a wait for one. */
class Child {
  readonly lines: Line[] = [];
  private waiters: Array<() => void> = [];
  readonly proc: ReturnType<typeof Bun.spawn>;

  constructor(args: string[], env: Record<string, string>) {
    this.proc = Bun.spawn([process.execPath, CHILD, ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit" });
    void this.read();
  }

  private async read(): Promise<void> {
    let buffered = "";
    const decoder = new TextDecoder();
    for await (const chunk of this.proc.stdout as ReadableStream<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let nl = buffered.indexOf("\n");
      while (nl >= 0) {
        const text = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (text.startsWith("{")) this.lines.push(JSON.parse(text) as Line);
        nl = buffered.indexOf("\n");
      }
      for (const w of this.waiters.splice(0)) w();
    }
    for (const w of this.waiters.splice(0)) w();
  }

  /** The first line matching `match`, once it comes. */
  async waitFor(match: (line: Line) => boolean, what: string, timeoutMs = 60_000): Promise<Line> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(match);
      if (found) return found;
      if (Date.now() > until || this.proc.exitCode !== null || this.proc.signalCode)
        throw new Error(`no ${what} (lines: ${this.lines.length})`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 1_000).unref?.();
      });
    }
  }

  log(event: string): Line[] {
    return this.lines.filter((l) => l.log?.event === event).map((l) => l.log);
  }
}

let gateway: FakeGateway | undefined;
let fake: FakeServerCommand | undefined;
let state: string | undefined;
const children: Child[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    c.proc.kill("SIGKILL");
    await c.proc.exited;
  }
  // A fake server whose agent was killed mid-call: stopped by its own PID, as recorded.
  for (const pid of new Set((fake?.recordedRequests() ?? []).map((r) => r.pid))) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone with its agent.
    }
  }
  await gateway?.close();
  fake?.dispose();
  if (state) rmSync(state, { recursive: true, force: true });
  gateway = fake = state = undefined;
});

const tool = (req: RecordedRequest, suffix: string) => req.tools.find((n) => n.endsWith(suffix))!;
const serverCalls = () =>
  (fake?.recordedRequests() ?? [])
    .filter((r) => r.method === "tools/call")
    .map((r) => `${(r.params as { name: string }).name} ${JSON.stringify((r.params as { arguments?: unknown }).arguments)}`);

/**
 * The world: a model that deletes one path then answers with what the tool said; `hang`: the tool never
 * answers. `laterCall`: after the deletion, the model lists the directory (a call no rule asks about) before
 * it answers — `hang: "list"`: that listing never answers.
 */
async function world(hang: boolean | "list" = false, laterCall = false) {
  state = mkdtempSync(join(tmpdir(), "agentd-lease-state-"));
  fake = fakeServerCommand({
    tools: [
      { name: "delete_file", text: "deleted {{path}}", annotations: { destructiveHint: true }, ...(hang === true ? { hang: true } : {}) },
      { name: "list_dir", text: "listed {{path}}", ...(hang === "list" ? { hang: true } : {}) },
    ],
  });
  gateway = await startFakeGateway({
    dialect: "openai",
    script: laterCall
      ? [
          // Asked again from the saved turn (a takeover), the model makes the same calls again.
          (req) =>
            !req.lastToolResult
              ? { toolCalls: [{ name: tool(req, "delete_file"), arguments: { path: "/srv/old" } }] }
              : /deleted/.test(req.lastToolResult) && !/listed|died during/.test(req.bodyText)
                ? { toolCalls: [{ name: tool(req, "list_dir"), arguments: { path: "/srv" } }] }
                : { text: `tool said: ${req.lastToolResult}` },
        ]
      : [
          (req) => ({ toolCalls: [{ name: tool(req, "delete_file"), arguments: { path: "/srv/old" } }] }),
          (req) => ({ text: `tool said: ${req.lastToolResult}` }),
        ],
    ...(laterCall ? { onExhausted: "repeat-last" as const } : {}),
  });
  const env = { GATEWAY_URL: gateway.url, SERVER_CONFIG: JSON.stringify(fake.config), XDG_STATE_HOME: state, ...LEASE };
  const start = (args: string[], extra: Record<string, string> = {}) => {
    const c = new Child(args, { ...env, ...extra });
    children.push(c);
    return c;
  };
  /** A process that serves, starts `runId` and is up once the run waits, saved, at the desk. */
  const waitingIn = async (runId: string, extra: Record<string, string> = {}) => {
    const c = start(["serve", runId], extra);
    await c.waitFor((l) => l.event?.type === "run-end" && l.event.stopReason === "waiting", "run waiting");
    return c;
  };
  const decide = async () => {
    const c = start(["decide"]);
    const out = await c.waitFor((l) => Array.isArray(l.decided), "decision");
    expect(out.decided).toHaveLength(1);
  };
  return { start, waitingIn, decide };
}

const resumed = (l: Line) => l.log?.event === "approvals.run-resumed";

describe("durable waits on one local state directory", () => {
  test("a decision taken in another process is heard, and the waiting process resumes the run", async () => {
    const { waitingIn, decide } = await world();
    const a = await waitingIn("job-heard");
    await decide();
    await a.waitFor(resumed, "resumed run");
    expect(serverCalls()).toEqual(['delete_file {"path":"/srv/old"}']);
    expect(gateway!.requests.at(-1)!.bodyText).toContain("deleted /srv/old");
  }, 120_000);

  test("kill -9 mid-call: a new process takes the run over once the lease lapses, and does not call the tool again", async () => {
    const { start, waitingIn, decide } = await world(true);
    const a = await waitingIn("job-killed");
    await decide();
    // The approved call reached the server, which never answers: the resuming process is in the call.
    await a.waitFor((l) => l.log?.event === "run.resumed", "claim");
    await fake!.control.waitForRequests("tools/call");
    a.proc.kill("SIGKILL");
    await a.proc.exited;

    const b = start(["serve"]);
    const done = (await b.waitFor(resumed, "takeover")).log;
    expect(done).toMatchObject({ runId: "job-killed", status: "finished", takenOver: true });
    expect(b.log("run.taken-over")).toHaveLength(1);
    expect(serverCalls()).toEqual(['delete_file {"path":"/srv/old"}']);
    const body = gateway!.requests.at(-1)!.bodyText;
    expect(body).toContain("died during the call");
    expect(body).toContain("It was not made again");
  }, 120_000);

  test("kill -9 during a later turn's call (no decision needed): the takeover does not make it again", async () => {
    const { start, waitingIn, decide } = await world("list", true);
    const a = await waitingIn("job-later");
    await decide();
    // The approved deletion made, then the listing of the next turn reached the server, which never answers.
    await fake!.control.waitForRequests("tools/call", 2);
    a.proc.kill("SIGKILL");
    await a.proc.exited;

    const b = start(["serve"]);
    expect((await b.waitFor(resumed, "takeover")).log).toMatchObject({ runId: "job-later", status: "finished", takenOver: true });
    // Each call reached the server once: the deletion's recorded result and the listing's unknown outcome were read.
    expect(serverCalls()).toEqual(['delete_file {"path":"/srv/old"}', 'list_dir {"path":"/srv"}']);
    const body = gateway!.requests.at(-1)!.bodyText;
    expect(body).toContain("died during the call");
  }, 120_000);

  test("died after its claim, before the call: taken over, the call made once", async () => {
    const { start, waitingIn, decide } = await world();
    const a = await waitingIn("job-claimed", { DIE_AFTER_CLAIM: "1" });
    await decide();
    await a.proc.exited;
    expect(a.proc.signalCode).toBe("SIGKILL");
    expect(serverCalls()).toEqual([]);

    const b = start(["serve"]);
    expect((await b.waitFor(resumed, "takeover")).log).toMatchObject({ runId: "job-claimed", status: "finished", takenOver: true });
    expect(serverCalls()).toEqual(['delete_file {"path":"/srv/old"}']);
    expect(gateway!.requests.at(-1)!.bodyText).toContain("deleted /srv/old");
  }, 120_000);

  test("a question whose poster was killed is decided by the timeout at its deadline by a process started meanwhile", async () => {
    const { start, waitingIn } = await world();
    const a = await waitingIn("job-expiring", { TIMEOUT_MS: "8000" });
    a.proc.kill("SIGKILL");
    await a.proc.exited;
    const dir = join(state!, "agentd", "approvals");
    const file = readdirSync(dir).find((n) => n.startsWith("approval%2F"))!;
    const question = () => (JSON.parse(readFileSync(join(dir, file), "utf8")) as { value: { approval: Line } }).value.approval;
    const expiresAt = Date.parse(question().expiresAt);

    const b = start(["serve"]);
    await b.waitFor((l) => l.ready === true, "serving");
    // Up before the deadline: no sweep at start decides it, only a timer armed for it.
    expect(Date.now()).toBeLessThan(expiresAt);
    expect(question().state).toBe("pending");
    expect((await b.waitFor(resumed, "resumed run")).log).toMatchObject({ runId: "job-expiring", status: "finished" });
    expect(question()).toMatchObject({ state: "decided", decision: { decision: "deny", by: "timeout" } });
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect(serverCalls()).toEqual([]);
    expect(gateway!.requests.at(-1)!.bodyText).toContain("was denied");
  }, 120_000);
});
