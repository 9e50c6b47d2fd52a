/**
 * The MCP clients people already use, each pointed at the real `agentd serve` (Streamable HTTP, with and
 * without `--json-response`, and stdio): list tools, call `agent.run`, read `agent://status`, and count the
 * transport errors the client reports, which must be none. The clients and their versions are pinned in the
 * root package.json; the matrix is in the README ("Clients tried").
 */
import { afterEach, describe, expect, test } from "bun:test";
import { CLI_MAIN } from "./__fixtures__/cli-harness.ts";
import { INTEROP_CLIENTS, type Target } from "./__fixtures__/interop/clients.ts";
import { echoThenAnswer, serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { childEnv, startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
afterEach(async () => {
  await stopAllServe();
  await world?.close();
  world = undefined;
}, 30_000);

/** Connect `client` to `target`, do the three things every client does, and return the errors it reported. */
async function exercise(client: (typeof INTEROP_CLIENTS)[number], target: Target): Promise<{ errors: unknown[]; revision: string | undefined }> {
  const errors: unknown[] = [];
  const session = await client.connect(target, errors);
  try {
    expect(await session.listToolNames()).toContain("agent.run");
    expect(await session.run("Say hello through the echo tool")).toBe("The tool said: echo: hello over serve");
    expect(await session.readStatus()).toMatchObject({ state: "idle", runsSucceeded: 1 });
  } finally {
    await session.close();
  }
  return { errors, revision: session.revision };
}

const describeErrors = (errors: unknown[]) => errors.map((e) => (e instanceof Error ? e.message : JSON.stringify(e)).slice(0, 200));

for (const client of INTEROP_CLIENTS) {
  describe(`${client.name} ${client.version} against agentd serve`, () => {
    test("over --http: tools, agent.run, agent://status with no transport error", async () => {
      world = await serveWorld(echoThenAnswer());
      const serve = await startServe(["--http", "127.0.0.1:0", "--config", world.config, "--grace", "2s"], { env: world.env, cwd: world.ws.dir });
      const { errors } = await exercise(client, { kind: "http", url: serve.url });
      expect(describeErrors(errors)).toEqual([]);
    }, 60_000);

    test("over --http --json-response: the same with no transport error", async () => {
      world = await serveWorld(echoThenAnswer());
      const serve = await startServe(["--http", "127.0.0.1:0", "--json-response", "--config", world.config, "--grace", "2s"], {
        env: world.env,
        cwd: world.ws.dir,
      });
      const { errors } = await exercise(client, { kind: "http", url: serve.url });
      expect(describeErrors(errors)).toEqual([]);
    }, 60_000);

    test("over --stdio: the same with no transport error", async () => {
      world = await serveWorld(echoThenAnswer());
      const target: Target = {
        kind: "stdio",
        command: process.execPath,
        args: [CLI_MAIN, "serve", "--stdio", "--config", world.config],
        env: childEnv(world.env),
        cwd: world.ws.dir,
      };
      const { errors } = await exercise(client, target);
      expect(describeErrors(errors)).toEqual([]);
    }, 60_000);
  });
}
