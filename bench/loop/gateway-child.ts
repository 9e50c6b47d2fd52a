/**
 * The loop benchmark's fake gateway, in a process of its own: the testkit's OpenAI-compatible gateway
 * playing `loopTurn` for every request, with each request's server-side time recorded — from the call of
 * its `Bun.serve` fetch handler (headers read) to the `Response` handed back (body read, turn played,
 * answer built; the loop's answers are whole JSON bodies, written at once).
 * Prints `{"url":...}`; stdin commands: `reset` (forget the times), `report` (`{"ms":[...]}`).
 */
import { startFakeGateway } from "@agentd/testkit";
import { serveControl } from "../lib/server-control.ts";
import { loopTurn } from "./script.ts";

let times: number[] = [];
// Time every request of every Bun.serve server in this process (the gateway is the only one; the testkit
// serves with Bun.serve under Bun).
const serve = Bun.serve;
Bun.serve = ((options: Parameters<typeof Bun.serve>[0]) => {
  const handler = (options as { fetch: (this: unknown, request: Request, server: unknown) => Response | Promise<Response> }).fetch;
  return serve({
    ...options,
    fetch(this: unknown, request: Request, server: unknown) {
      const t0 = performance.now();
      return Promise.resolve(handler.call(this, request, server)).then((response) => {
        times.push(performance.now() - t0);
        return response;
      });
    },
  } as Parameters<typeof Bun.serve>[0]);
}) as typeof Bun.serve;

const gateway = await startFakeGateway({ dialect: "openai", script: [loopTurn], onExhausted: "repeat-last" });
serveControl({ url: gateway.url }, () => gateway.close(), {
  reset: () => {
    times = [];
    return { ok: true };
  },
  report: () => ({ ms: times }),
});
