#!/usr/bin/env bun
/**
 * Run a fake gateway from a JSON script, for test runners in any language:
 *
 *   bun packages/testkit/src/gateway/serve-gateway.ts script.json [--dialect openai] [--model M]
 *       [--require-api-key K] [--latency-ms N] [--on-exhausted error|repeat-last] [--exit-on-stdin-close]
 *
 * stdout: the base URL on the first line, then one JSON line per request handled (the RecordedRequest,
 * credentials redacted). It runs until SIGINT/SIGTERM (or stdin closes, with --exit-on-stdin-close).
 * A mistake in the arguments or the script is one line on stderr and exit code 2.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startFakeGateway } from "./fake-gateway.ts";
import { loadGatewayOptions } from "./load-script.ts";
import type { FakeGateway, FakeGatewayOptions } from "./types.ts";

const USAGE =
  "usage: serve-gateway SCRIPT.json [--dialect openai|anthropic|gemini] [--model M] [--require-api-key K] [--latency-ms N] [--on-exhausted error|repeat-last] [--exit-on-stdin-close]";

/** Parse the command line into gateway options (throws a one-line Error on a mistake). */
export function optionsFromArgs(
  args: string[],
  readText: (path: string) => string = (path) => readFileSync(path, "utf8"),
): { options: FakeGatewayOptions; exitOnStdinClose: boolean } {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      dialect: { type: "string" },
      model: { type: "string" },
      "require-api-key": { type: "string" },
      "latency-ms": { type: "string" },
      "on-exhausted": { type: "string" },
      "exit-on-stdin-close": { type: "boolean" },
    },
  });
  if (positionals.length !== 1) throw new Error(USAGE);
  const path = positionals[0] as string;
  let text: string;
  try {
    text = readText(path);
  } catch (error) {
    throw new Error(`cannot read script ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const latency = values["latency-ms"] === undefined ? undefined : Number(values["latency-ms"]);
  const overrides = Object.fromEntries(
    Object.entries({
      dialect: values.dialect,
      model: values.model,
      requireApiKey: values["require-api-key"],
      latencyMs: latency,
      onExhausted: values["on-exhausted"],
    }).filter(([, value]) => value !== undefined),
  );
  try {
    return { options: loadGatewayOptions(text, overrides), exitOnStdinClose: values["exit-on-stdin-close"] === true };
  } catch (error) {
    throw new Error(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Start the gateway and stream its record to `write`; resolves with the running gateway. */
export async function serveGateway(options: FakeGatewayOptions, write: (line: string) => void): Promise<FakeGateway> {
  const gateway = await startFakeGateway({ ...options, onRequest: (request) => write(JSON.stringify(request)) });
  write(gateway.url);
  return gateway;
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof optionsFromArgs>;
  try {
    parsed = optionsFromArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`serve-gateway: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
  const gateway = await serveGateway(parsed.options, (line) => process.stdout.write(`${line}\n`));
  const stop = () => void gateway.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  if (parsed.exitOnStdinClose) {
    process.stdin.resume();
    process.stdin.once("end", stop);
  }
}

if (import.meta.main) await main();
