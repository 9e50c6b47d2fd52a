/**
 * The headers and JSON shapes every console answer shares, in one place so that no answer — page, asset,
 * API or event stream — can leave out the Content-Security-Policy or answer an error in another shape.
 */

/** The Content-Security-Policy of every console answer. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The headers every console answer carries (the listener adds them to its own refusals too). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

/** `res` with the console's security headers set. */
export function withHeaders(res: Response): Response {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.headers.set(k, v);
  return res;
}

/** A JSON answer that is never cached. */
export function consoleJson(body: unknown, status = 200): Response {
  return withHeaders(Response.json(body, { status, headers: { "cache-control": "no-store" } }));
}

/** An error answer: `{ error: { code, message } }` with its HTTP status. */
export function consoleFailure(status: number, code: string, message: string): Response {
  return consoleJson({ error: { code, message } }, status);
}

/** 405 with the methods a path allows. */
export function methodNotAllowed(allow: string): Response {
  return withHeaders(new Response(null, { status: 405, headers: { allow } }));
}
