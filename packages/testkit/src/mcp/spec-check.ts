/**
 * Checks a fake server spec before anything runs, so a mistake in a test (or in a JSON spec file handed to
 * the stdio bin) is one clear line naming the field, not a confusing failure later in the session.
 */
import { AgentdError } from "@agentd/sdk/wire";

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

class SpecError extends Error {}

function fail(path: string, what: string): never {
  throw new SpecError(`${path} ${what}`);
}

function str(o: Obj, key: string, path: string, required = false): void {
  const v = o[key];
  if (v === undefined) {
    if (required) fail(`${path}.${key}`, "is required (a string)");
    return;
  }
  if (typeof v !== "string" || (required && v === "")) fail(`${path}.${key}`, "must be a non-empty string");
}

function num(o: Obj, key: string, path: string): void {
  const v = o[key];
  if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v) || v < 0)) fail(`${path}.${key}`, "must be a non-negative number");
}

function obj(o: Obj, key: string, path: string): void {
  if (o[key] !== undefined && !isObject(o[key])) fail(`${path}.${key}`, "must be an object");
}

function fn(o: Obj, key: string, path: string, code: boolean): void {
  if (o[key] === undefined) return;
  if (!code) fail(`${path}.${key}`, "is code and cannot come from JSON; use createFakeMcpServer in the test process");
  if (typeof o[key] !== "function") fail(`${path}.${key}`, "must be a function");
}

function list(spec: Obj, key: string, each: (item: Obj, path: string) => void): void {
  const v = spec[key];
  if (v === undefined) return;
  if (!Array.isArray(v)) fail(key, "must be an array");
  const seen = new Set<string>();
  v.forEach((item, i) => {
    const path = `${key}[${i}]`;
    if (!isObject(item)) fail(path, "must be an object");
    each(item, path);
    const id = String(item.name ?? item.uri ?? item.uriTemplate);
    if (seen.has(id)) fail(path, `repeats ${JSON.stringify(id)}`);
    seen.add(id);
  });
}

function completions(o: Obj, path: string): void {
  const c = o.complete;
  if (c === undefined) return;
  if (!isObject(c) || !Object.values(c).every((v) => Array.isArray(v) && v.every((s) => typeof s === "string")))
    fail(`${path}.complete`, "must map names to arrays of strings");
}

function tool(t: Obj, path: string, code: boolean): void {
  str(t, "name", path, true);
  for (const key of ["title", "description", "text"]) str(t, key, path);
  for (const key of ["inputSchema", "outputSchema", "annotations", "execution", "result"]) obj(t, key, path);
  num(t, "delayMs", path);
  for (const key of ["isError", "hang"])
    if (t[key] !== undefined && typeof t[key] !== "boolean") fail(`${path}.${key}`, "must be a boolean");
  if (t.crash !== undefined && typeof t.crash !== "boolean" && !isObject(t.crash)) fail(`${path}.crash`, "must be true or { exitCode }");
  if (t.progress !== undefined) {
    if (!Array.isArray(t.progress)) fail(`${path}.progress`, "must be an array of { progress, total?, message?, delayMs? }");
    t.progress.forEach((s, i) => {
      const p = `${path}.progress[${i}]`;
      if (!isObject(s) || typeof s.progress !== "number") fail(p, "must have a numeric progress");
      num(s, "total", p);
      num(s, "delayMs", p);
      str(s, "message", p);
    });
  }
  if (t.logs !== undefined) {
    if (!Array.isArray(t.logs)) fail(`${path}.logs`, "must be an array of { level, data }");
    t.logs.forEach((l, i) => {
      if (!isObject(l) || !LEVELS.includes(l.level as string)) fail(`${path}.logs[${i}].level`, `must be one of ${LEVELS.join(", ")}`);
    });
  }
  if (t.clientRequest !== undefined) {
    if (!isObject(t.clientRequest)) fail(`${path}.clientRequest`, "must be { method, params? }");
    str(t.clientRequest, "method", `${path}.clientRequest`, true);
    obj(t.clientRequest, "params", `${path}.clientRequest`);
  }
  fn(t, "handler", path, code);
}

/**
 * Check a spec. `code: false` (a JSON spec) also refuses the code-only hooks. Throws
 * `AgentdError("E_CONFIG_INVALID")` with one line naming the field.
 */
export function checkSpec(spec: unknown, options: { code: boolean }): void {
  const { code } = options;
  try {
    if (!isObject(spec)) fail("the spec", "must be an object");
    for (const key of ["name", "version", "instructions"]) str(spec, key, "spec");
    num(spec, "pageSize", "spec");
    obj(spec, "capabilities", "spec");
    list(spec, "tools", (t, p) => tool(t, p, code));
    list(spec, "resources", (r, p) => {
      str(r, "uri", p, true);
      for (const key of ["name", "title", "description", "mimeType", "text", "blob"]) str(r, key, p);
    });
    list(spec, "resourceTemplates", (r, p) => {
      str(r, "uriTemplate", p, true);
      for (const key of ["name", "title", "description", "mimeType", "text", "blob"]) str(r, key, p);
      completions(r, p);
      fn(r, "read", p, code);
    });
    list(spec, "prompts", (r, p) => {
      str(r, "name", p, true);
      if (r.arguments !== undefined && !(Array.isArray(r.arguments) && r.arguments.every((a) => isObject(a) && typeof a.name === "string")))
        fail(`${p}.arguments`, "must be an array of { name, description?, required? }");
      if (
        r.messages !== undefined &&
        !(Array.isArray(r.messages) && r.messages.every((m) => isObject(m) && (typeof m.text === "string" || isObject(m.content))))
      )
        fail(`${p}.messages`, "must be an array of { role, text } or { role, content }");
      completions(r, p);
      fn(r, "get", p, code);
    });
  } catch (e) {
    if (e instanceof SpecError) throw new AgentdError("E_CONFIG_INVALID", `fake MCP server spec: ${e.message}`);
    throw e;
  }
}
