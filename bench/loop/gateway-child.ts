/**
 * The loop benchmark's fake gateway, in a process of its own: the testkit's OpenAI-compatible gateway
 * playing `loopTurn` for every request, with each request's server-side time recorded — from the `request`
 * event of its HTTP server to the `finish` of the response (body read, turn played, answer written).
 * Prints `{"url":...}`; stdin commands: `reset` (forget the times), `report` (`{"ms":[...]}`).
 */
import http from "node:http";
import { startFakeGateway } from "@agentd/testkit";
import { serveControl } from "../lib/server-control.ts";
import { loopTurn } from "./script.ts";

let times: number[] = [];
// Time every request of every node:http server in this process (the gateway is the only one).
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function timedEmit(this: http.Server, event: string | symbol, ...args: unknown[]) {
  if (event === "request") {
    const t0 = performance.now();
    (args[1] as http.ServerResponse).once("finish", () => times.push(performance.now() - t0));
  }
  return emit.call(this, event, ...args);
} as typeof emit;

const gateway = await startFakeGateway({ dialect: "openai", script: [loopTurn], onExhausted: "repeat-last" });
serveControl({ url: gateway.url }, () => gateway.close(), {
  reset: () => {
    times = [];
    return { ok: true };
  },
  report: () => ({ ms: times }),
});
