/**
 * `${VAR}` expansion of config strings from the environment. `$${VAR}` escapes to a literal `${VAR}`.
 * A reference to an unset or empty variable (without a `:-default`) is an error naming the variable and where
 * it was used: a silently empty Authorization header is worse than a clear refusal to start. Every value
 * taken from the environment is registered as a secret (`registerSecretValue`), so no log, error line or
 * output of agentd shows it, whichever header, URL or child environment it went into.
 */
import { AgentdError } from "../wire/errors.ts";
import { registerSecretValue } from "../secret-values.ts";

const REF = /\$?\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expand `${VAR}` and `${VAR:-default}` in every string of a JSON-like value. `path` names the field in errors. */
export function expandEnv<T>(value: T, env: Record<string, string | undefined>, path = "config"): T {
  if (typeof value === "string") {
    return value.replace(REF, (match, name: string, fallback: string | undefined) => {
      if (match.startsWith("$$")) return match.slice(1);
      const v = env[name];
      if (v !== undefined && v !== "") {
        // Whatever it holds, a value from the environment is treated as a secret in every log and output.
        registerSecretValue(v);
        return v;
      }
      if (fallback !== undefined) return fallback;
      const state = v === undefined ? "is not set" : "is empty";
      throw new AgentdError("E_CONFIG_INVALID", `${path}: environment variable ${name} ${state} (referenced as \${${name}})`);
    }) as T;
  }
  if (Array.isArray(value)) return value.map((v, i) => expandEnv(v, env, `${path}[${i}]`)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = expandEnv(v, env, `${path}.${k}`);
    return out as T;
  }
  return value;
}
