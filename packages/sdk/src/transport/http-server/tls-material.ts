/**
 * TLS material for the server: each value is PEM contents or a path to a PEM file, read once at start.
 * The only file in the HTTP server that touches the file system.
 */
import { readFileSync } from "node:fs";
import { AgentdError } from "../../wire/errors.ts";

/**
 * Return PEM text: `value` itself when it holds a `-----BEGIN` block, else the contents of the file it names.
 * Throws E_CONFIG_INVALID naming the option (never the contents) when the file cannot be read or holds no PEM.
 */
export function loadPem(value: string, option: string): string {
  if (value.includes("-----BEGIN")) return value;
  let text: string;
  try {
    text = readFileSync(value, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "read error";
    throw new AgentdError("E_CONFIG_INVALID", `http server: cannot read ${option} file ${value} (${code})`);
  }
  if (!text.includes("-----BEGIN")) throw new AgentdError("E_CONFIG_INVALID", `http server: ${option} file ${value} holds no PEM block`);
  return text;
}
