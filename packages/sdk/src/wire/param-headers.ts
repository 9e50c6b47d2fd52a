/**
 * Tool parameters mirrored into HTTP headers (2026-07-28, Streamable HTTP transport, "Custom Headers from
 * Tool Parameters"): a property of a tool's `inputSchema` annotated `"x-mcp-header": "Region"` travels as
 * `Mcp-Param-Region: <value>` beside the body, so intermediaries can route on it; the server checks the
 * header against the body (a mismatch is -32020). Pure functions, shared by client and server.
 *
 * An annotation is valid only on a `string`, `integer` or `boolean` property reached from the root through
 * `properties` keys alone; its value is a non-empty RFC 9110 token, unique ignoring case. A tool with an
 * invalid annotation is excluded by an HTTP client ("MUST reject tool definitions").
 */

const KEY = "x-mcp-header";
/** RFC 9110 `token` (`1*tchar`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PLAIN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const SENTINEL = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/;

/** One mirrored parameter: the header name part and the property path in `arguments`. */
export interface ParamHeader {
  name: string;
  path: readonly string[];
}

/** The annotations of a tool's `inputSchema`, or why the tool definition is invalid. */
export type ParamHeaders = { ok: true; headers: ParamHeader[] } | { ok: false; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Read the `x-mcp-header` annotations of `inputSchema`, checking every constraint of the spec. */
export function paramHeaders(inputSchema: unknown): ParamHeaders {
  const headers: ParamHeader[] = [];
  const seen = new Map<string, string>();
  let problem: string | undefined;
  const at = (path: readonly string[]) => (path.length === 0 ? "inputSchema" : `inputSchema.properties.${path.join(".properties.")}`);
  // `reachable`: every step so far was a `properties` key.
  const walk = (node: unknown, path: readonly string[], reachable: boolean, where: string): void => {
    if (problem !== undefined) return;
    if (Array.isArray(node)) {
      node.forEach((n, i) => walk(n, path, false, `${where}[${i}]`));
      return;
    }
    if (!isObject(node)) return;
    if (Object.hasOwn(node, KEY)) {
      const raw = node[KEY];
      if (!reachable || path.length === 0)
        return void (problem = `${where}: ${KEY} is allowed only on properties reached through "properties" keys`);
      if (typeof raw !== "string" || !TOKEN.test(raw))
        return void (problem = `${at(path)}: ${KEY} must be a non-empty HTTP token, got ${JSON.stringify(raw)}`);
      const type = node.type;
      if (type !== "string" && type !== "integer" && type !== "boolean")
        return void (problem = `${at(path)}: ${KEY} is allowed only on string, integer or boolean properties, not ${JSON.stringify(type ?? "untyped")}`);
      const prior = seen.get(raw.toLowerCase());
      if (prior !== undefined) return void (problem = `${KEY} "${raw}" is not unique ignoring case (also "${prior}")`);
      seen.set(raw.toLowerCase(), raw);
      headers.push({ name: raw, path });
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === KEY) continue;
      if (key === "properties" && isObject(value)) {
        for (const [prop, schema] of Object.entries(value)) walk(schema, [...path, prop], reachable, `${where}.properties.${prop}`);
      } else walk(value, path, false, `${where}.${key}`);
    }
  };
  walk(inputSchema, [], true, "inputSchema");
  return problem === undefined ? { ok: true, headers } : { ok: false, reason: problem };
}

/** A header value as sent: as is when plain visible ASCII, else (or when it looks like the sentinel) Base64. */
export function encodeHeaderValue(value: string): string {
  const sentinelLike = value.startsWith("=?base64?") && value.endsWith("?=");
  if (PLAIN.test(value) && !sentinelLike) return value;
  return `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/** A header value as the client meant it: the Base64 sentinel form decoded. */
export function decodeHeaderValue(value: string): string {
  const m = SENTINEL.exec(value);
  return m ? Buffer.from(m[1]!, "base64").toString("utf8") : value;
}

/** The value at `path` of `args`, as a header carries it (`undefined`: no header; null counts as absent). */
function valueAt(args: unknown, path: readonly string[]): string | undefined {
  let v: unknown = args;
  for (const key of path) v = isObject(v) && Object.hasOwn(v, key) ? v[key] : undefined;
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number" && Number.isSafeInteger(v)) return String(v);
  return undefined;
}

/** The `Mcp-Param-*` headers of one `tools/call` (encoded; lower-cased names). */
export function paramHeaderValues(declared: readonly ParamHeader[], args: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of declared) {
    const value = valueAt(args, h.path);
    if (value !== undefined) out[`mcp-param-${h.name.toLowerCase()}`] = encodeHeaderValue(value);
  }
  return out;
}

/**
 * What is wrong with the `Mcp-Param-*` headers of a `tools/call` (`get` reads a request header by name,
 * ignoring case), or undefined. Integers compare numerically (the spec's SHOULD: `42.0` equals `42`).
 */
export function paramHeaderMismatch(
  declared: readonly ParamHeader[],
  args: unknown,
  get: (name: string) => string | null,
): string | undefined {
  for (const h of declared) {
    const header = get(`mcp-param-${h.name}`);
    const body = valueAt(args, h.path);
    if (header === null) {
      if (body !== undefined) return `the Mcp-Param-${h.name} header is required (arguments.${h.path.join(".")} is set)`;
      continue;
    }
    if (!PLAIN.test(header) && header !== "") return `the Mcp-Param-${h.name} header holds characters a header value may not`;
    if (body === undefined) return `the Mcp-Param-${h.name} header is set but arguments.${h.path.join(".")} is not`;
    const sent = decodeHeaderValue(header);
    const numeric = /^-?\d+$/.test(body) && sent.trim() !== "" && Number(sent) === Number(body);
    if (sent !== body && !numeric) return `Mcp-Param-${h.name} header does not match arguments.${h.path.join(".")}`;
  }
  return undefined;
}
