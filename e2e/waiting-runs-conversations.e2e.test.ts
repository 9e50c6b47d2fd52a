/**
 * A run that continues a conversation, waits for a decision and is resumed by another process: the
 * conversation ends holding the whole exchange once — the turns the first part saved before the wait and the
 * resumed turns after it — and the next run in the conversation sends them to the model. Real processes on
 * one state directory (`XDG_STATE_HOME`), the fake gateway over loopback HTTP (its recorded requests are
 * what the model was sent) and the testkit's fake MCP server over stdio.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  fakeServerCommand,
  startFakeGateway,
  type FakeGateway,
  type FakeServerCommand,
  type NormalizedMessage,
  type RecordedRequest,
} from "@agentd/testkit";

const CHILD = join(import.meta.dir, "__fixtures__", "conversation-waiting-child.ts");

let gateway: FakeGateway | undefined;
let fake: FakeServerCommand | undefined;
let state: string | undefined;
afterEach(async () => {
  await gateway?.close();
  fake?.dispose();
  if (state) rmSync(state, { recursive: true, force: true });
  gateway = fake = state = undefined;
});

const tool = (req: RecordedRequest, suffix: string) => req.tools.find((n) => n.endsWith(suffix))!;

/** One process, to its exit: its printed result. */
async function child(args: string[]): Promise<Record<string, unknown>> {
  const proc = Bun.spawn([process.execPath, CHILD, ...args], {
    env: { ...process.env, GATEWAY_URL: gateway!.url, SERVER_CONFIG: JSON.stringify(fake!.config), XDG_STATE_HOME: state! },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`child ${args.join(" ")} exited ${code}: ${stdout} ${stderr}`);
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "null") as Record<string, unknown>;
}

type Stored = { role: string; content: string | Array<{ type: string; text?: string; toolName?: string; output?: unknown }> };
/** A stored message in one line: its role and its text, tool calls or tool results. */
const line = (m: Stored): string =>
  typeof m.content === "string"
    ? `${m.role}: ${m.content}`
    : `${m.role}: ${m.content.map((p) => (p.type === "text" ? p.text : p.type === "tool-call" ? `call ${p.toolName}` : `result ${JSON.stringify(p.output)}`)).join(" ")}`;
/** A message the model was sent, in one line of the same kind. */
const sent = (m: NormalizedMessage): string =>
  `${m.role}: ${[m.text, ...m.toolCalls.map((c) => `call ${c.name}`), ...m.toolResults.map((r) => `result ${r.content}`)].filter(Boolean).join(" ")}`;

/** The user's requests and the tool results, in the order the model was sent them. */
const spoken = (messages: string[]) => messages.filter((m) => /^(user|tool): /.test(m));

/** The world of one test: the fake MCP server and the gateway playing `script`. */
async function world(script: Parameters<typeof startFakeGateway>[0]["script"]): Promise<void> {
  state = mkdtempSync(join(tmpdir(), "agentd-waiting-conv-"));
  fake = fakeServerCommand({
    tools: [
      { name: "delete_file", text: "deleted {{path}}", annotations: { destructiveHint: true } },
      { name: "read_file", text: "contents of {{path}}", annotations: { readOnlyHint: true } },
    ],
  });
  gateway = await startFakeGateway({ dialect: "openai", script });
}

const readThenDelete = [
  (req: RecordedRequest) => ({ toolCalls: [{ name: tool(req, "read_file"), arguments: { path: "/a" } }] }),
  (req: RecordedRequest) => ({ toolCalls: [{ name: tool(req, "delete_file"), arguments: { path: "/srv/old" } }] }),
];

/** Run `run-clean` to its wait and resume it approved in a second process. */
async function cleanAndResume(between?: () => Promise<void>): Promise<void> {
  const waiting = await child(["run", "run-clean", "clean up"]);
  expect(waiting).toMatchObject({ status: "waiting", conversationId: "inbox" });
  await between?.();
  const [question] = waiting.pending as Array<{ id: string; digest: string }>;
  const done = await child(["resume", "run-clean", JSON.stringify({ [question!.id]: { decision: "approve", digest: question!.digest } })]);
  expect(done).toMatchObject({ status: "finished", text: "cleaned", conversationId: "inbox" });
}

describe("a waiting run's conversation, resumed in another process", () => {
  test("holds the first part's turns and the resumed turns once; the next run sends them to the model", async () => {
    await world([{ text: "hi there" }, ...readThenDelete, { text: "cleaned" }, { text: "told" }]);
    await child(["run", "run-hello", "hello"]);
    await cleanAndResume();
    const stored = (await child(["show"])) as { messages: Stored[]; runs: string[] };
    const exchange = [
      "user: hello",
      "assistant: hi there",
      "user: clean up",
      "assistant: call fs__read_file",
      'tool: result "contents of /a"',
      "assistant: call fs__delete_file",
      'tool: result "deleted /srv/old"',
      "assistant: cleaned",
    ];
    expect(stored.messages.map(line).map((l) => l.replace(/result ".*?(contents of \/a|deleted \/srv\/old).*"/, 'result "$1"'))).toEqual(
      exchange,
    );
    expect(stored.runs).toEqual(["run-hello", "run-clean"]);
    // The next run in the conversation: the model reads the whole exchange, once, before the new request.
    expect(await child(["run", "run-next", "what did you do?"])).toMatchObject({ status: "finished", text: "told" });
    const next = gateway!.requests.at(-1)!.messages.map(sent);
    expect(spoken(next)).toEqual([
      "user: hello",
      "user: clean up",
      expect.stringMatching(/^tool: result [\s\S]*contents of \/a/),
      expect.stringMatching(/^tool: result [\s\S]*deleted \/srv\/old/),
      "user: what did you do?",
    ]);
    expect(next.filter((m) => m.startsWith("assistant: cleaned"))).toHaveLength(1);
  }, 120_000);

  test("another run continued the conversation during the wait: its turns stay, the resumed run's whole exchange follows once", async () => {
    await world([...readThenDelete, { text: "meanwhile done" }, { text: "cleaned" }, { text: "told" }]);
    await cleanAndResume(async () => {
      expect(await child(["run", "run-between", "meanwhile"])).toMatchObject({ status: "finished", text: "meanwhile done" });
    });
    const stored = (await child(["show"])) as { messages: Stored[] };
    const users = stored.messages.map(line).filter((l) => l.startsWith("user: ") || l.startsWith("assistant: cleaned"));
    expect(users).toEqual(["user: meanwhile", "user: clean up", "assistant: cleaned"]);
    const results = stored.messages.map(line).filter((l) => l.startsWith("tool: "));
    expect(results).toHaveLength(2);
    expect(await child(["run", "run-next", "what did you do?"])).toMatchObject({ text: "told" });
    const next = spoken(gateway!.requests.at(-1)!.messages.map(sent));
    expect(next.filter((m) => m === "user: clean up")).toHaveLength(1);
    expect(next.filter((m) => /deleted \/srv\/old/.test(m))).toHaveLength(1);
    expect(next.at(-1)).toBe("user: what did you do?");
  }, 120_000);
});
