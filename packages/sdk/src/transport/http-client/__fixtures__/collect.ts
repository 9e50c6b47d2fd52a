/**
 * Test helper: record what a transport delivers and wait for conditions with a failure deadline (never a
 * fixed sleep). `request()` sends a JSON-RPC request and resolves with its response.
 */
import type { JsonRpcMessage } from "../../../wire/jsonrpc.ts";
import type { FrameError, Transport } from "../../types.ts";

type Json = any;

export interface Collected {
  messages: Json[];
  errors: Error[];
  frameErrors: FrameError[];
  closes: number;
  /** Resolve once `pred()` holds; fail after `ms` naming `what`. */
  until(pred: () => boolean, what: string, ms?: number): Promise<void>;
  /** Send a request and wait for the response with its id. */
  request(method: string, params?: Record<string, unknown>): Promise<Json>;
  /** Messages that are notifications of `method`. */
  notes(method: string): Json[];
}

let nextId = 1;

export function collect(t: Transport, deadlineMs = 20_000): Collected {
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  const c: Collected = {
    messages: [],
    errors: [],
    frameErrors: [],
    closes: 0,
    until(pred, what, ms = deadlineMs) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pred()) return;
          clearTimeout(timer);
          clearInterval(poll);
          waiters.delete(check);
          resolve();
        };
        // Re-check on every callback, and every 25 ms for state that changes without one (stream states).
        const poll = setInterval(check, 25);
        const timer = setTimeout(() => {
          clearInterval(poll);
          waiters.delete(check);
          const errors = c.errors.map((e) => e.message).join(" | ");
          reject(new Error(`timed out after ${ms} ms waiting for ${what}${errors ? ` (errors: ${errors})` : ""}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    async request(method, params) {
      const id = nextId++;
      await t.send({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) } as JsonRpcMessage);
      await c.until(() => c.messages.some((m) => m.id === id && ("result" in m || "error" in m)), `the response to ${method}`);
      return c.messages.find((m) => m.id === id && ("result" in m || "error" in m));
    },
    notes: (method) => c.messages.filter((m) => m.method === method && m.id === undefined),
  };
  t.onmessage = (m) => {
    c.messages.push(m);
    wake();
  };
  t.onerror = (e) => {
    c.errors.push(e);
    wake();
  };
  t.onframeerror = (e) => {
    c.frameErrors.push(e);
    wake();
  };
  t.onclose = () => {
    c.closes++;
    wake();
  };
  return c;
}

/** The initialize request of the current revision. */
export const initializeParams = (revision = "2025-11-25") => ({
  protocolVersion: revision,
  capabilities: {},
  clientInfo: { name: "agentd-test", version: "0.0.0" },
});
