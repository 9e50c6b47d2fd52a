/**
 * The body of a console action (`POST /console/api/...`: an operator's action, a run started from the page, an
 * answer to a question): a JSON object of at most 64 KiB, read through the server's bounded reader
 * (transport/http-server/body.ts: refused at its declared length, or as a chunked body passes the bound,
 * and within the body deadline), never whole first and measured after.
 */
import { readBoundedBody } from "../../transport/http-server/body.ts";

/** The most a console action's body may hold (bytes). */
export const MAX_CONSOLE_BODY = 64 * 1024;

/** The parameters, or why they are refused (an HTTP status, an error code and one line for the page). */
export type ConsoleBody = { ok: true; params: Record<string, unknown> } | { ok: false; status: number; code: string; message: string };

/**
 * Read `req`'s JSON object. `what` names the body for the messages (`the answer`: "send the answer as
 * application/json", "the answer must be at most 65536 bytes"); an empty body is `{}` when `emptyIsObject`.
 */
export async function readConsoleBody(req: Request, what: string, options: { emptyIsObject?: boolean } = {}): Promise<ConsoleBody> {
  const no = (status: number, code: string, message: string): ConsoleBody => ({ ok: false, status, code, message });
  if (!(req.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json"))
    return no(415, "unsupported_media_type", `send ${what} as application/json`);
  const body = await readBoundedBody(req, MAX_CONSOLE_BODY);
  if (!body.ok) {
    if (body.status === 413) return no(413, "too_large", `${what} must be at most ${MAX_CONSOLE_BODY} bytes`);
    if (body.status === 408) return no(408, "timeout", `${what} did not arrive in time`);
    return no(400, "invalid_body", `${what} is not UTF-8 text`);
  }
  let value: unknown;
  try {
    value = options.emptyIsObject && body.text.trim() === "" ? {} : JSON.parse(body.text);
  } catch {
    return no(400, "invalid_json", "the body is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return no(400, "invalid_params", "the body must be a JSON object");
  return { ok: true, params: value as Record<string, unknown> };
}
