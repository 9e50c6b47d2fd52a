/**
 * End to end: the mistakes of a first hour with a real model each end in one line that names what failed —
 * a model endpoint that refuses connections or answers with an HTML page, a missing model name, a mistyped
 * command or config key, a duration without a unit. The real `agentd` process against real loopback servers.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CliWorkspace } from "@agentd/test-support/cli-process";

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let server: ReturnType<typeof Bun.serve> | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await server?.stop(true);
  server = undefined;
  ws?.cleanup();
  ws = undefined;
});

/** The lines agentd itself wrote to stderr for a person (not telemetry records). */
const ownLines = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("agentd:"));

describe("the model endpoint", () => {
  test("refusing connections: the endpoint and the cause, once, with the attempts", async () => {
    // A port that was just listened on and closed: nothing listens there now.
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = probe.port;
    await probe.stop(true);
    ws = new CliWorkspace();
    const run = await ws.run(["run", "--intelligence", `http://127.0.0.1:${port}/v1`, "-m", "x", "hi"]);
    expect(run.code).toBe(4);
    expect(ownLines(run.stderr)).toEqual([`agentd: model endpoint http://127.0.0.1:${port}/v1: connection refused (3 attempts)`]);
    expect(run.stderr).not.toContain("Is the computer able");
  });

  test("answering with an HTML error page: status, content type and a short text excerpt in one line", async () => {
    const page = `<!DOCTYPE html>\n<html>\n<head><title>501 Not Implemented</title></head>\n<body>\n<center><h1>501 Not Implemented</h1></center>\n<hr><center>nginx/1.25.3</center>\n${"<!-- padding -->\n".repeat(8)}</body>\n</html>\n`;
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => new Response(page, { status: 501, headers: { "content-type": "text/html" } }),
    });
    ws = new CliWorkspace();
    const url = `http://127.0.0.1:${server.port}/v1`;
    const run = await ws.run(["run", "--intelligence", url, "-m", "x", "hi"]);
    expect(run.code).toBe(4);
    const lines = ownLines(run.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(`agentd: model endpoint ${url} returned HTTP 501 (text/html): 501 Not Implemented nginx/1.25.3 (3 attempts)`);
  });

  test("no model name: refused before anything is sent, naming --model, AGENT_MODEL and model.name", async () => {
    gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "never" }] });
    ws = new CliWorkspace();
    const run = await ws.run(["run", "--intelligence", gateway.url, "hi"]);
    expect(run.code).toBe(2);
    const lines = ownLines(run.stderr);
    expect(lines).toHaveLength(1);
    for (const where of ["--model", "AGENT_MODEL", "model.name"]) expect(lines[0]).toContain(where);
    expect(gateway.requests).toHaveLength(0);
  });

  test("the offline demo still runs (its scripted model has a name of its own)", async () => {
    ws = new CliWorkspace();
    const run = await ws.run(["demo"]);
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBeGreaterThan(0);
  }, 30_000);
});

describe("mistypes get a did-you-mean", () => {
  test("a command: agentd rnu", async () => {
    ws = new CliWorkspace();
    const run = await ws.run(["rnu", "hi"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("agentd: unknown command 'rnu' (did you mean 'run'?). Run 'agentd --help' to see the commands.\n");
  });

  test("a config key: limits.maxTurn", async () => {
    ws = new CliWorkspace();
    const config = ws.writeConfig({ model: { intelligence: "http://127.0.0.1:9/v1", name: "m" }, limits: { maxTurn: 3 } });
    const run = await ws.run(["run", "--config", config, "hi"]);
    expect(run.code).toBe(2);
    expect(ownLines(run.stderr)).toEqual([`agentd: ${config}.limits.maxTurn: unknown field; did you mean "maxTurns"?`]);
  });
});

describe("durations need a unit wherever they are read", () => {
  const cases: Array<[string, string[], Record<string, string>, string]> = [
    ["a flag", ["run", "--interval", "5", "x"], {}, "--interval '5': a bare number has no unit"],
    ["a variable", ["run", "hi"], { AGENT_DEADLINE: "30" }, "AGENT_DEADLINE: a bare number has no unit"],
    ["the file", ["run", "--config", "agentd.json", "hi"], {}, "agentd.json.limits.deadline: a bare number has no unit"],
  ];
  test.each(cases)("%s", async (_where, args, env, message) => {
    ws = new CliWorkspace();
    ws.writeConfig({
      model: { intelligence: "http://127.0.0.1:9/v1", name: "m" },
      ...(args.includes("--config") ? { limits: { deadline: 5000 } } : {}),
    });
    const run = await ws.run(args, { env });
    expect(run.code).toBe(2);
    const lines = ownLines(run.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(message);
    expect(lines[0]).toContain("ms, s, m, h or d");
  });
});
