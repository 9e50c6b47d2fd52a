/**
 * The control channel of a fake MCP server running as a stdio child: one HTTP endpoint on a unix socket
 * (never a network port), one JSON command per POST. The test side is `FakeServerControl`; the child side
 * is `serveControl`. Commands that wait (`requests`, `cancellations`) answer when the condition holds.
 */
import type { FakeResourceContent, FakeToolSpec } from "./types.ts";

/** A command from the test to the child. */
export type ControlCommand =
  | { op: "setResource"; uri: string; content: FakeResourceContent }
  /** Several resources changed by one command: the child notifies each at once, a burst of changes. */
  | { op: "setResources"; changes: Array<{ uri: string; content: FakeResourceContent }> }
  | { op: "removeResource"; uri: string }
  | { op: "addTool"; tool: FakeToolSpec }
  | { op: "removeTool"; name: string }
  /** The requests received (of `method`, if given), once there are at least `min` of them. */
  | { op: "requests"; method?: string; min?: number; timeoutMs?: number }
  /** The notifications received (of `method`, if given). */
  | { op: "notifications"; method?: string }
  /** The cancellations received, once there are at least `min`. */
  | { op: "cancellations"; min?: number; timeoutMs?: number };

/** The child's answer: `{ ok: true, value }` or `{ ok: false, error }` (one line). */
export type ControlReply = { ok: true; value: unknown } | { ok: false; error: string };
