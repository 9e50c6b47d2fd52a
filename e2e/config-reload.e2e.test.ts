/**
 * Configuration changes without a restart, through real processes: SIGHUP to `agentd serve` applies a
 * changed file (its served prompts change for a client, a setting that needs a restart is reported as such);
 * a ConfigMap-style update — a directory holding `..data -> ..2026_x` and `agentd.json -> ..data/agentd.json`,
 * swapped by renaming a new `..data` symlink over the old one — is applied without a signal; an invalid file
 * is refused with one line and the running configuration stays; `agentd run` in a long-running mode reloads
 * on SIGHUP too.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CLI_MAIN } from "@agentd/test-support/cli-process";
import { modelEnv } from "./__fixtures__/serve/serve-env.ts";
import { childEnv, startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";

let dir: string | undefined;
let gateway: FakeGateway | undefined;
let client: Client | undefined;
const spawned = new Set<import("bun").Subprocess>();
afterEach(async () => {
  await client?.close().catch(() => {});
  await stopAllServe();
  for (const p of spawned) {
    p.kill("SIGKILL");
    await p.exited;
  }
  spawned.clear();
  await gateway?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  client = gateway = dir = undefined;
}, 30_000);

const prompts = (...names: string[]) => Object.fromEntries(names.map((n) => [n, { description: `prompt ${n}`, text: `Do ${n}` }]));
const configWith = (names: string[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ prompts: prompts(...names), ...extra }, null, 2);

async function world() {
  dir = mkdtempSync(join(tmpdir(), "agentd-reload-"));
  gateway = await startFakeGateway({ dialect: "openai", onExhausted: "repeat-last", script: [{ text: "ok" }] });
  return { dir, env: modelEnv(gateway) };
}

/** The names `prompts/list` gives a fresh client session. */
async function promptNames(serve: ServeProcess): Promise<string[]> {
  await client?.close().catch(() => {});
  client = new Client({ name: "reload-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(serve.url));
  return (await client.listPrompts()).prompts.map((p) => p.name).sort();
}

const reloaded = (from: number) => (serve: ServeProcess) =>
  serve.waitForEvent((e) => e.event === "agent.reloaded" || e.event === "agent.reload-refused", from);

describe("reloading the configuration of a running agentd", () => {
  test("SIGHUP to agentd serve applies the changed file; a setting that needs a restart is reported as such", async () => {
    const { dir, env } = await world();
    const file = join(dir, "agentd.json");
    writeFileSync(file, configWith(["alpha"]));
    // --no-watch-config: only the signal can cause this reload.
    const serve = await startServe(["--http", "127.0.0.1:0", "--config", file, "--no-watch-config"], { env });
    expect(await promptNames(serve)).toEqual(["alpha"]);

    writeFileSync(file, configWith(["alpha", "beta"], { subagents: { maxDepth: 2 } }));
    const mark = serve.events().length;
    process.kill(serve.pid, "SIGHUP");
    const line = await reloaded(mark)(serve);
    expect(line).toMatchObject({ event: "agent.reloaded", changed: ["prompts"], restartRequired: ["subagents"] });
    expect(await promptNames(serve)).toEqual(["alpha", "beta"]);
  }, 60_000);

  test("a ConfigMap-style symlink swap is applied without a signal; an invalid file is refused with one line and the old configuration stays", async () => {
    const { dir, env } = await world();
    // The kubelet's layout: the file is a symlink through ..data into a timestamped directory.
    const version = (name: string, text: string) => {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, "agentd.json"), text);
    };
    version("..2026_12_06_00_00_00.1", configWith(["alpha"]));
    symlinkSync("..2026_12_06_00_00_00.1", join(dir, "..data"));
    symlinkSync("..data/agentd.json", join(dir, "agentd.json"));
    const swap = (name: string, text: string, old: string) => {
      version(name, text);
      symlinkSync(name, join(dir, "..data_tmp"));
      renameSync(join(dir, "..data_tmp"), join(dir, "..data"));
      rmSync(join(dir, old), { recursive: true });
    };
    const serve = await startServe(["--http", "127.0.0.1:0", "--config", join(dir, "agentd.json")], { env });
    expect(await promptNames(serve)).toEqual(["alpha"]);

    let mark = serve.events().length;
    swap("..2026_12_06_00_01_00.2", configWith(["alpha", "gamma"]), "..2026_12_06_00_00_00.1");
    expect(await reloaded(mark)(serve)).toMatchObject({ event: "agent.reloaded", changed: ["prompts"], restartRequired: [] });
    expect(await promptNames(serve)).toEqual(["alpha", "gamma"]);

    mark = serve.events().length;
    swap("..2026_12_06_00_02_00.3", '{ "prompts": { "bad name!": { "text": "x" } } }', "..2026_12_06_00_01_00.2");
    const refused = await reloaded(mark)(serve);
    expect(refused.event).toBe("agent.reload-refused");
    expect(refused.cause).toBe("file-changed");
    expect(refused.error).toContain("prompt names");
    expect(await promptNames(serve)).toEqual(["alpha", "gamma"]);
    // One line for the refusal: no second reload of the same file, no stack trace.
    expect(
      serve
        .events()
        .slice(mark)
        .filter((e) => String(e.event).startsWith("agent.reload")),
    ).toHaveLength(1);
    expect(
      serve
        .events()
        .slice(mark)
        .some((e) => /\n\s+at /.test(JSON.stringify(e))),
    ).toBe(false);

    // A good file after the bad one is applied.
    mark = serve.events().length;
    swap("..2026_12_06_00_03_00.4", configWith(["delta"]), "..2026_12_06_00_02_00.3");
    expect(await reloaded(mark)(serve)).toMatchObject({ event: "agent.reloaded", changed: ["prompts"] });
    expect(await promptNames(serve)).toEqual(["delta"]);
  }, 60_000);

  test("agentd run in a long-running mode reloads on SIGHUP; its command-line triggers are not the file's to change", async () => {
    const { dir, env } = await world();
    const file = join(dir, "agentd.json");
    writeFileSync(file, JSON.stringify({ limits: { maxTurns: 5 } }));
    const proc = Bun.spawn(
      [process.execPath, CLI_MAIN, "run", "--interval", "1h", "--no-watch-config", "--config", file, "Check the queue"],
      {
        env: childEnv(env),
        stdin: "ignore",
        stdout: "ignore",
        stderr: "pipe",
      },
    );
    spawned.add(proc);
    const lines: Record<string, any>[] = [];
    const waitFor = async (match: (e: Record<string, any>) => boolean, reader: ReadableStreamDefaultReader<Uint8Array>) => {
      const decoder = new TextDecoder();
      let buffered = "";
      for (;;) {
        const found = lines.find(match);
        if (found) return found;
        const { value, done } = await reader.read();
        if (done) throw new Error(`agentd run ended first:\n${lines.map((l) => JSON.stringify(l)).join("\n")}`);
        buffered += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buffered.indexOf("\n")) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (line.startsWith("{")) lines.push(JSON.parse(line));
        }
      }
    };
    const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
    await waitFor((e) => e.event === "trigger.run-end", reader);
    writeFileSync(file, JSON.stringify({ limits: { maxTurns: 7 }, triggers: { interval: { every: "1m", instruction: "x" } } }));
    proc.kill("SIGHUP");
    const line = await waitFor((e) => e.event === "agent.reloaded" || e.event === "agent.reload-refused", reader);
    expect(line).toMatchObject({ event: "agent.reloaded", changed: ["limits"], restartRequired: ["triggers"] });
    reader.releaseLock();
  }, 60_000);
});
