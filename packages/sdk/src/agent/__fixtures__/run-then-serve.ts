/**
 * A process that creates an agent, runs it once without serving, prints which of the SDK's serving modules
 * it has loaded by then, serves once over HTTP (127.0.0.1, an ephemeral port), prints them again and exits:
 * lazy-serving.test.ts checks that a run alone never loads what only serving uses. It imports `createAgent`
 * from its own module, not from an entry (whose barrels load every part by design when run from sources).
 */
import { scriptedModel, reply } from "../../loop/__fixtures__/scripted-model.ts";
import { createAgent } from "../create-agent.ts";

/** The modules only serving uses: the served agent, the HTTP server, A2A, the console, run history. */
const SERVING =
  /\/agent\/serving\/(agent-serving|served-agent)\.ts$|\/transport\/http-server\/(index|create-server)\.ts$|\/a2a\/server\/|\/agent\/console\/|\/serve\/(served-mcp|run-registry)\.ts$/;

const loaded = () =>
  Object.keys(require.cache)
    .filter((path) => SERVING.test(path))
    .map((path) => path.replace(/^.*\/packages\/sdk\/src\//, ""))
    .sort();

const agent = createAgent({ model: scriptedModel([reply("done")]) });
const { text } = await agent.run("go");
const afterRun = loaded();
await agent.serve({ http: { hostname: "127.0.0.1", port: 0 } });
const afterServe = loaded();
await agent.close();
process.stdout.write(`${JSON.stringify({ text, afterRun, afterServe })}\n`);
