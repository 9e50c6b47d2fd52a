/** The JSON script loader, and the CLI once through a real process: URL on stdout, then one JSON line a request. */
import { afterEach, describe, expect, test } from "bun:test";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { loadGatewayOptions } from "./load-script.ts";
import { optionsFromArgs } from "./serve-gateway.ts";
import type { RecordedRequest } from "./types.ts";

const children: ChildProcessWithoutNullStreams[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scriptFile(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "fake-gateway-"));
  dirs.push(dir);
  const path = join(dir, "script.json");
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

const CLI = join(import.meta.dir, "serve-gateway.ts");

describe("loadGatewayOptions", () => {
  test("an options object or a bare array; flags win; textTemplate becomes a dynamic turn", async () => {
    const options = loadGatewayOptions(
      JSON.stringify({
        dialect: "anthropic",
        model: "from-file",
        script: [{ text: "a" }, { textTemplate: "got {{lastToolResult}} via {{model}}" }],
      }),
      { model: "from-flag" },
    );
    expect(options).toMatchObject({ dialect: "anthropic", model: "from-flag" });
    const dynamic = options.script?.[1];
    if (typeof dynamic !== "function") throw new Error("expected a dynamic turn");
    const request = { model: "m1", lastToolResult: "42", messages: [], tools: [] } as unknown as RecordedRequest;
    expect(await dynamic(request)).toEqual({ text: "got 42 via m1" });
    expect(loadGatewayOptions('[{"text":"x"}]', { dialect: "gemini" }).script).toEqual([{ text: "x" }]);
  });

  test("mistakes are one line naming the place", () => {
    expect(() => loadGatewayOptions("[", { dialect: "openai" })).toThrow(/not valid JSON/);
    expect(() => loadGatewayOptions('[{"text":"x"}]')).toThrow(/dialect must be one of/);
    expect(() => loadGatewayOptions('[{"text":"x"},{"fault":"nope"}]', { dialect: "openai" })).toThrow(/script\[1\]: unknown fault "nope"/);
    expect(() => loadGatewayOptions('[{"textTemplate":"{{secret}}"}]', { dialect: "openai" })).toThrow(
      /script\[0\]: unknown placeholder \{\{secret\}\}/,
    );
    expect(() => optionsFromArgs([scriptFile([]), "--latency-ms", "soon", "--dialect", "openai"])).toThrow(/latencyMs must be a number/);
    expect(() => optionsFromArgs([])).toThrow(/^usage: serve-gateway/);
  });
});

describe("serve-gateway CLI", () => {
  test("prints the URL, serves the script, streams each request as a JSON line, exits 0 on SIGTERM", async () => {
    const path = scriptFile({ script: [{ text: "hello from the CLI" }] });
    const child = spawn(process.execPath, [CLI, path, "--dialect", "openai", "--require-api-key", "cli-key"], { stdio: "pipe" });
    children.push(child);
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const url = (await lines.next()).value as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const response = await fetch(`${url}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer cli-key", "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe(
      "hello from the CLI",
    );
    const recorded = JSON.parse((await lines.next()).value as string) as RecordedRequest;
    expect(recorded).toMatchObject({ dialect: "openai", model: "m", hasAuth: true, headers: { authorization: "[redacted]" } });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  test("a bad script exits 2 with one line on stderr", async () => {
    const child = spawn(process.execPath, [CLI, scriptFile('{"dialect":"openai","script":[{"txt":1}]}')], { stdio: "pipe" });
    children.push(child);
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("close", (exitCode) => resolve(exitCode)));
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/serve-gateway: .*script\.json: script\[0\]: a turn needs/);
  });
});
