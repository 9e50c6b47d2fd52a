/**
 * The example, run for real: `agentd run --mode reactive --config agentd.json` (this folder's config) with
 * a scripted fake gateway from @agentd/testkit as the model. The inbox file lives in a temp folder (the
 * config's `${INBOX_FILE:-inbox.md}`), so the test never touches the example's own files.
 */
import { afterAll, afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";

// The `@agentd/cli` workspace package: its sources sit beside its entry.
const AGENTD = join(dirname(fileURLToPath(import.meta.resolve("@agentd/cli"))), "main.ts");

/**
 * A folder whose `bun` is the Bun running this test, first on the watcher's PATH (the config starts its
 * server as `bun`). A link, not the folder of `process.execPath`: that need not hold a `bun` (npm's package
 * of Bun keeps `bun.exe` there, reached through a link elsewhere).
 */
const bunBin = join(mkdtempSync(join(tmpdir(), "agentd-watcher-bin-")), "bin");
mkdirSync(bunBin);
symlinkSync(process.execPath, join(bunBin, "bun"));
afterAll(() => rmSync(dirname(bunBin), { recursive: true, force: true }));

let gateway: FakeGateway | undefined;
let dir: string | undefined;
const running = new Set<ReturnType<typeof Bun.spawn>>();
afterEach(async () => {
  for (const p of running) p.kill("SIGKILL");
  await Promise.all([...running].map((p) => p.exited));
  running.clear();
  await gateway?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  gateway = undefined;
  dir = undefined;
});

/** Start the example's watcher; `ended(n)` resolves once n runs ended (from its JSON telemetry on stderr). */
function startWatcher(env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, AGENTD, "run", "--mode", "reactive", "--config", "agentd.json"], {
    cwd: import.meta.dir,
    env: { PATH: `${bunBin}:${process.env.PATH}`, HOME: process.env.HOME ?? "", AGENT_LOG_FORMAT: "json", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  running.add(proc);
  const ends: Array<Record<string, any>> = [];
  let wake = () => {};
  let stdout = "";
  const stderr = (async () => {
    let partial = "";
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) {
      const lines = (partial + new TextDecoder().decode(chunk)).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) if (line.includes('"trigger.run-end"')) ends.push(JSON.parse(line));
      wake();
    }
  })();
  const out = (async () => {
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) stdout += new TextDecoder().decode(chunk);
  })();
  return {
    async ended(n: number) {
      while (ends.length < n) {
        if (proc.exitCode !== null) throw new Error(`the watcher exited with ${proc.exitCode}`);
        await new Promise<void>((r) => (wake = r));
      }
      return ends;
    },
    async stop() {
      proc.kill("SIGTERM");
      const code = await proc.exited;
      await Promise.all([stderr, out]);
      running.delete(proc);
      return { code, stdout };
    },
  };
}

test("each new state of the inbox is triaged once; after a restart the same state is found already done", async () => {
  dir = mkdtempSync(join(tmpdir(), "reactive-watcher-"));
  const inbox = join(dir, "inbox.md");
  const log = join(dir, "triage.jsonl");
  writeFileSync(inbox, "- Invoice #1042 from ACME\n");
  gateway = await startFakeGateway({
    dialect: "openai",
    onExhausted: "repeat-last",
    script: [
      (req) => {
        if (req.lastToolResult === undefined) {
          const items = (req.messages.find((m) => m.role === "user")?.text.match(/^- .*/gm) ?? []).length;
          return {
            toolCalls: [{ name: req.tools.find((t) => t.endsWith("file_triage")) as string, arguments: { note: `${items} item(s)` } }],
          };
        }
        return { text: req.lastToolResult.includes("already done") ? "ALREADY_DONE" : "Filed the note." };
      },
    ],
  });
  const env = { AGENT_INTELLIGENCE: gateway.url, AGENT_MODEL: "scripted", INBOX_FILE: inbox, TRIAGE_LOG: log };

  const watcher = startWatcher(env);
  await watcher.ended(1); // read right after subscribing: the current state
  writeFileSync(inbox, "- Invoice #1042 from ACME\n- Meeting request from Dana\n");
  const ends = await watcher.ended(2);
  expect(ends.map((e) => e.status)).toEqual(["ok", "ok"]);
  const first = await watcher.stop();
  expect(first.code).toBe(143);
  expect(first.stdout).toBe("Filed the note.\nFiled the note.\n");
  const filed = () =>
    readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
  expect(filed().map((e) => e.note)).toEqual(["1 item(s)", "2 item(s)"]);
  expect(filed().map((e) => e.runId)).toEqual(ends.map((e) => e.runId));

  // Restarted with the inbox unchanged: the same state, the same run id, and the tool knows it is done.
  const again = startWatcher(env);
  const [redelivered] = await again.ended(1);
  expect(redelivered).toMatchObject({ runId: ends[1]?.runId, status: "already-done" });
  const second = await again.stop();
  expect(second.code).toBe(143);
  expect(second.stdout).toBe("");
  expect(filed()).toHaveLength(2);
  expect(existsSync(join(import.meta.dir, "triage-log.jsonl"))).toBe(false);
}, 60_000);
