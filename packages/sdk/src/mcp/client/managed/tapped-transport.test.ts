import { afterEach, describe, expect, test } from "bun:test";
import { MemoryTransport } from "../../../transport/memory.ts";
import { AgentdError } from "../../../wire/errors.ts";
import type { LossReason } from "./replay-policy.ts";
import { TappedTransport } from "./tapped-transport.ts";

/** An in-memory transport that also has a Streamable-HTTP-like push stream state. */
class PushTransport extends MemoryTransport {
  getStreamState = "open";
  /** Report an error the way the HTTP transport does, optionally ending the push stream right after. */
  fail(error: Error, endState?: string): void {
    this.onerror?.(error);
    if (endState) this.getStreamState = endState;
  }
}

const open: TappedTransport[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

function tapped(): { inner: PushTransport; losses: LossReason[]; protocolErrors: Error[]; settled: () => Promise<void> } {
  const inner = new PushTransport();
  const losses: LossReason[] = [];
  const protocolErrors: Error[] = [];
  const t = new TappedTransport(inner, (reason) => losses.push(reason));
  t.onerror = (e) => protocolErrors.push(e);
  open.push(t);
  // The tap looks on a 0 ms timer; a 0 ms timer set later runs after it (equal delays run in order).
  const settled = () => new Promise<void>((r) => setTimeout(r, 0));
  return { inner, losses, protocolErrors, settled };
}

describe("TappedTransport", () => {
  test("session expiry is a loss at once; the protocol still hears the error", () => {
    const { inner, losses, protocolErrors } = tapped();
    inner.fail(new AgentdError("E_SESSION_EXPIRED", "gone"));
    expect(losses).toEqual(["session-expired"]);
    expect(protocolErrors).toHaveLength(1);
  });

  test("a push stream that gave up re-opening is a loss once it has ended", async () => {
    const { inner, losses, settled } = tapped();
    inner.fail(new AgentdError("E_CONNECTION_CLOSED", "could not re-open the server-push stream after 6 attempts"), "failed");
    expect(losses).toEqual([]);
    await settled();
    expect(losses).toEqual(["push-stream-failed"]);
  });

  test("a GET the server refuses is not a loss, nor is a push stream that keeps going", async () => {
    const { inner, losses, settled } = tapped();
    inner.fail(new AgentdError("E_TRANSPORT", "answered GET with HTTP 404"), "failed");
    inner.getStreamState = "reconnecting";
    inner.fail(new AgentdError("E_CONNECTION_CLOSED", "a response stream ended early"));
    await settled();
    expect(losses).toEqual([]);
  });

  test("close() cancels a pending check", async () => {
    const { inner, losses, settled } = tapped();
    const t = open[0]!;
    inner.fail(new AgentdError("E_CONNECTION_CLOSED", "gave up"), "failed");
    await t.close();
    await settled();
    expect(losses).toEqual([]);
  });
});
