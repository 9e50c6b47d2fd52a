/**
 * `agentd status`: a running `agentd serve`'s overview, runs in flight and last failures, as tables on a
 * terminal (`--json` for programs; `--watch` to follow: it subscribes to `agent://status` and
 * `agent://runs` and prints again on every update, until SIGINT).
 */
import { defineCommand } from "citty";
import { scrubSecrets } from "@agentd/sdk/telemetry";
import { EXIT } from "../exit-codes.ts";
import { renderStatus } from "../status/render-status.ts";
import { type connectStatus, connectServer, serverConnectionArgs, snapshot } from "../status/read-status.ts";
import { AgentdError } from "@agentd/sdk";

export const statusExamples = [
  "agentd status --url http://127.0.0.1:7777              # the overview, runs in flight, last failures",
  "AGENTD_URL=https://agentd.example.com/mcp AGENTD_TOKEN=… agentd status",
  "agentd status --url https://agentd.example.com/mcp --token-file ops.token --tls-ca ca.pem",
  "agentd status --json | jq '.failures[].error.code'      # one JSON document",
  "agentd status --watch                                   # print again on every change, until Ctrl-C",
];

export const statusCommand = defineCommand({
  meta: { name: "status", description: "Show a running agentd serve: overview, runs in flight, last failures (over MCP)." },
  args: {
    ...serverConnectionArgs,
    json: { type: "boolean", description: "Print one JSON document { url, status, running, failures, at }" },
    watch: { type: "boolean", description: "Subscribe and print again on every update, until SIGINT" },
    failures: { type: "string", description: "How many of the last failures to show (1-100, default 10)" },
  },
  async run({ args }) {
    const failures = args.failures === undefined ? 10 : Number(args.failures);
    if (!Number.isInteger(failures) || failures < 1 || failures > 100)
      throw new AgentdError("E_USAGE", `--failures must be an integer from 1 to 100 (got '${args.failures}')`);
    const { client, url } = await connectServer(args, "agentd status");
    const print = async (first: boolean) => {
      const snap = await snapshot(client, url, failures);
      const text = args.json ? `${JSON.stringify(snap)}\n` : renderStatus(snap);
      // A terminal is cleared for each new picture; a pipe gets them one after another.
      const clear = args.watch && !args.json && process.stdout.isTTY ? "\x1b[2J\x1b[H" : !first && !args.json ? "\n" : "";
      process.stdout.write(scrubSecrets(clear + text));
    };
    try {
      await print(true);
      if (args.watch) await watch(client, () => print(false));
      return EXIT.ok;
    } finally {
      await client.close().catch(() => {});
    }
  },
});

/** Print again on every update of agent://status or agent://runs (one at a time, the last one always), until SIGINT/SIGTERM or the connection ends. */
async function watch(client: Awaited<ReturnType<typeof connectStatus>>, print: () => Promise<void>): Promise<void> {
  let busy = false;
  let again = false;
  let failed: unknown;
  const refresh = async () => {
    if (busy) return void (again = true);
    busy = true;
    try {
      do {
        again = false;
        await print();
      } while (again);
    } catch (e) {
      failed ??= e;
      stop();
    } finally {
      busy = false;
    }
  };
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  client.on("resourceUpdated", () => void refresh());
  client.on("close", stop);
  await client.subscribe("agent://status");
  await client.subscribe("agent://runs");
  // What changed between the first picture and the subscriptions.
  void refresh();
  await stopped;
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
  if (failed) throw failed;
}
