/**
 * Which A2A version a request speaks. The spec reads a request without `A2A-Version` as 0.3, so the header
 * (or the `A2A-Version` query parameter) decides between the v1.0 shapes and the v0.3 codec in `v03/`.
 */
import { A2aError } from "../shared/types.ts";
import { isV03Version } from "./v03/card.ts";

/** The version a request speaks; `implicit` when the header was absent (read as 0.3). */
export interface WireVersion {
  version: "1.0" | "0.3";
  implicit: boolean;
}

/** The protocol version the request speaks: "1.0", "0.3" (also when the header is absent: `implicit`), or the refusal. */
export function wireVersion(req: Request): WireVersion | A2aError {
  const v = req.headers.get("a2a-version") ?? new URL(req.url).searchParams.get("A2A-Version");
  if (v === null || v.trim() === "") return { version: "0.3", implicit: true };
  if (/^1(\.\d+)?$/.test(v.trim())) return { version: "1.0", implicit: false };
  if (isV03Version(v)) return { version: "0.3", implicit: false };
  return new A2aError("VersionNotSupported", `A2A-Version ${v.slice(0, 20)} is not supported: this agent speaks A2A 1.0 and 0.3`);
}

/** The v1.0 bindings' check: a request without the header is taken as 1.0 there (its paths and names are 1.0's). */
export function versionError(req: Request): A2aError | undefined {
  const w = wireVersion(req);
  if (w instanceof A2aError) return w;
  if (w.version === "0.3" && !w.implicit)
    return new A2aError("VersionNotSupported", "A2A 0.3 is served at the v0.3 names and paths (message/send, /v1/…), not here");
  return undefined;
}
