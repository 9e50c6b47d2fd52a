import { describe, expect, test } from "bun:test";
import { AgentdError, McpError } from "../../../wire/errors.ts";
import { RUN_ID_META_KEY } from "../../protocol/meta.ts";
import { carriesRunId, connectionLoss, interruptedError, mayReplay } from "./replay-policy.ts";

const expired = new AgentdError("E_SESSION_EXPIRED", "gone", { retryable: true });
const closed = new AgentdError("E_CONNECTION_CLOSED", "connection closed before a response arrived");
const unsent = new AgentdError("E_CONNECTION_CLOSED", "cannot send tools/call: connection is closed");

describe("replay policy", () => {
  test("what counts as a lost connection", () => {
    expect(connectionLoss(expired)).toBe("session-expired");
    expect(connectionLoss(new McpError(-32000, "gone", { code: "E_SESSION_EXPIRED" }))).toBe("session-expired");
    expect(connectionLoss(closed)).toBe("closed");
    // A POST stream that broke on a live session is that request's failure only.
    expect(connectionLoss(new McpError(-32000, "stream ended", { code: "E_CONNECTION_CLOSED" }))).toBeUndefined();
    expect(connectionLoss(new McpError(-32602, "bad params"))).toBeUndefined();
    expect(connectionLoss(new AgentdError("E_TIMEOUT", "slow"))).toBeUndefined();
  });

  test("reads are replayed after any loss; tools/call only after a session loss and with a run id", () => {
    expect(mayReplay("resources/read", false, "closed", closed)).toBe(true);
    expect(mayReplay("tools/list", false, "session-expired", expired)).toBe(true);
    expect(mayReplay("tools/call", true, "session-expired", expired)).toBe(true);
    expect(mayReplay("tools/call", false, "session-expired", expired)).toBe(false);
    expect(mayReplay("tools/call", true, "closed", closed)).toBe(false);
    expect(mayReplay("tasks/cancel", false, "session-expired", expired)).toBe(false);
    // Never sent at all: nothing could have run.
    expect(mayReplay("tools/call", false, "closed", unsent)).toBe(true);
  });

  test("the run id is found in params._meta or in the request's extra meta", () => {
    expect(carriesRunId({ name: "x", _meta: { [RUN_ID_META_KEY]: "r1" } })).toBe(true);
    expect(carriesRunId({ name: "x" }, { [RUN_ID_META_KEY]: "r1" })).toBe(true);
    expect(carriesRunId({ name: "x", _meta: { [RUN_ID_META_KEY]: "" } })).toBe(false);
    expect(carriesRunId({ name: "x" })).toBe(false);
  });

  test("the error says what happened and why it was not sent again", () => {
    expect(interruptedError("fs", "tools/call", "closed", false, closed).message).toBe(
      "MCP server 'fs': tools/call was interrupted (the connection closed; not replayed: it may have run, or crashed the server); reconnecting",
    );
    expect(interruptedError("fs", "resources/read", "push-stream-failed", true, closed).message).toContain(
      "could not be reached; it was already replayed once",
    );
  });
});
