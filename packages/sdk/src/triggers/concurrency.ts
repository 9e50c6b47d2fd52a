/** Parsing of the config file's concurrency strings into the router's {@link Concurrency}. */
import { AgentdError } from "../wire/errors.ts";
import type { Concurrency } from "./types.ts";

/** `"skip" | "queue" | "parallel:N"` (the `agentd.json` form) → {@link Concurrency}; throws `E_CONFIG_INVALID`. */
export function parseConcurrency(text: string): Concurrency {
  if (text === "skip" || text === "queue") return text;
  const m = /^parallel:(\d+)$/.exec(text);
  const n = m ? Number(m[1]) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new AgentdError("E_CONFIG_INVALID", `concurrency '${text}': expected "skip", "queue" or "parallel:N" (N ≥ 1)`);
  return { parallel: n };
}
