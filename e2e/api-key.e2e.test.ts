/**
 * End to end: `agentd run` finds the API key where users keep it — `AGENT_API_KEY`, then `model.apiKeyEnv`,
 * then the dialect's own variable (`OPENAI_API_KEY`; `ANTHROPIC_API_KEY`; `GEMINI_API_KEY`, then
 * `GOOGLE_API_KEY`) — and sends it in the dialect's header to a loopback gateway that checks that header
 * (`Authorization: Bearer`, `x-api-key`, `x-goog-api-key`). A refused key names its variable, never its value.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { startFakeGateway, type Dialect, type FakeGateway } from "@agentd/testkit";
import { CliWorkspace } from "@agentd/test-support/cli-process";

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
async function stop() {
  await gateway?.close();
  gateway = undefined;
  ws?.cleanup();
  ws = undefined;
}
afterEach(stop);

const KEY = "sk-the-right-key-4242";

/** Run once against a gateway that requires KEY in the dialect's header. */
async function run(dialect: Dialect, env: Record<string, string>, config: Record<string, unknown> = {}) {
  await stop(); // a test may run several
  ws = new CliWorkspace();
  gateway = await startFakeGateway({ dialect, requireApiKey: KEY, script: [{ text: "hello" }] });
  const file = ws.writeConfig(config);
  return await ws.run(["run", "--config", file, "--intelligence", gateway.url, "--dialect", dialect, "-m", "m-1", "hi"], { env });
}

describe("the dialect's conventional API-key variable", () => {
  test.each([
    ["openai", "OPENAI_API_KEY"],
    ["anthropic", "ANTHROPIC_API_KEY"],
    ["gemini", "GEMINI_API_KEY"],
    ["gemini", "GOOGLE_API_KEY"],
  ] as const)("%s reads %s and sends it in its own header", async (dialect, variable) => {
    const r = await run(dialect, { [variable]: KEY });
    expect(r.stderr).not.toContain(KEY);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("hello\n");
    expect(gateway!.requests[0]?.hasAuth).toBe(true);
  });

  test("AGENT_API_KEY comes first, then model.apiKeyEnv, then the dialect's variable; GEMINI_API_KEY before GOOGLE_API_KEY", async () => {
    expect((await run("openai", { AGENT_API_KEY: KEY, OPENAI_API_KEY: "sk-wrong" })).code).toBe(0);
    expect((await run("openai", { MY_KEY: KEY, OPENAI_API_KEY: "sk-wrong" }, { model: { apiKeyEnv: "MY_KEY" } })).code).toBe(0);
    expect((await run("gemini", { GEMINI_API_KEY: KEY, GOOGLE_API_KEY: "wrong" })).code).toBe(0);
  });
});

describe("a refused key says where it came from, in one line", () => {
  test("a wrong OPENAI_API_KEY: the 401 names the variable, never the value", async () => {
    const r = await run("openai", { OPENAI_API_KEY: "sk-wrong-value-777" });
    // An authentication refusal is not an outage: its own exit code (docs/run-output.md).
    expect(r.code).toBe(5);
    const line = r.stderr.trim().split("\n").at(-1)!;
    expect(line).toStartWith(`agentd: model endpoint ${gateway!.url.replace(/\/$/, "")} returned HTTP 401`);
    expect(line).toEndWith("(the API key came from OPENAI_API_KEY)");
    expect(r.stderr).not.toContain("sk-wrong-value-777");
  });

  test("no key at all: the 401 says none was set and where agentd looked", async () => {
    const r = await run("anthropic", {}, { model: { apiKeyEnv: "TEAM_KEY" } });
    expect(r.code).toBe(5);
    expect(r.stderr.trim().split("\n").at(-1)).toEndWith("(no API key was set (looked in AGENT_API_KEY, TEAM_KEY, ANTHROPIC_API_KEY))");
  });
});

test("agentd run --help names the key variables in the order they are read", async () => {
  ws = new CliWorkspace();
  const help = await ws.run(["run", "--help"]);
  expect(help.code).toBe(0);
  const order = ["AGENT_API_KEY", "model.apiKeyEnv", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"].map((v) =>
    help.stdout.indexOf(v),
  );
  expect(order.every((at) => at > 0)).toBe(true);
  expect(order).toEqual([...order].sort((a, b) => a - b));
});
