/**
 * One frozen client identity shared by the sessions that present it: a Streamable HTTP server may hold
 * thousands of sessions from one client program, and each would otherwise keep its own copy of the same
 * `clientInfo`. Only identities of plain string fields are shared (nothing a session could change).
 */
import type { Implementation } from "../../wire/index.ts";

/** The last client identity seen, frozen. */
let lastClientInfo: Implementation | undefined;

/** `info`, or an equal identity already held by another session. */
export function sharedClientInfo(info: Implementation | undefined): Implementation | undefined {
  if (typeof info !== "object" || info === null) return info;
  const last = lastClientInfo;
  const keys = Object.keys(info);
  if (!keys.every((k) => typeof (info as unknown as Record<string, unknown>)[k] === "string")) return info;
  if (
    last &&
    keys.length === Object.keys(last).length &&
    keys.every((k) => (last as unknown as Record<string, unknown>)[k] === (info as unknown as Record<string, unknown>)[k])
  )
    return last;
  lastClientInfo = Object.freeze(info);
  return info;
}
