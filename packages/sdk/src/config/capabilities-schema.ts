/**
 * The `capabilities` block of `agentd.json`: the switches, each off by default (docs/configuration.md).
 */
import * as v from "valibot";
import { SamplingConfigSchema } from "./servers-schema.ts";

/** The switches (docs/configuration.md). Absent = the default: off. */
export const CapabilitiesSchema = v.strictObject({
  /** Servicing inbound sampling with our own model (default false: -32601); per server in mcpServers.X.sampling. */
  sampling: v.optional(SamplingConfigSchema),
  /** Roots declared to every MCP server (paths or file:// URIs); empty or absent = not declared. */
  roots: v.optional(v.array(v.pipe(v.string(), v.minLength(1)))),
  /** Elicitation: "off" (default, not declared, -32601), a policy answering every elicitation, or "operator" (asked over A2A; docs/a2a.md). */
  elicitation: v.optional(
    v.union(
      [
        v.picklist(["decline", "cancel", "defaults", "off", "operator"]),
        v.strictObject({
          policy: v.picklist(["decline", "cancel", "defaults", "answers"], '"decline", "cancel", "defaults" or "answers"'),
          /** For "answers": field name → value, checked against each request's schema. */
          answers: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.array(v.string())]))),
          /** URL mode: "log" declares it, accepts and logs the URL for an operator; absent: refused. */
          url: v.optional(v.literal("log")),
        }),
      ],
      '"off", "decline", "cancel", "defaults", "operator" or { policy, answers, url }',
    ),
  ),
  /** Tasks (client side): task-augmented tools/call for tools that require it. */
  tasks: v.optional(v.boolean()),
  /** The supervisor checkpoint in an MCP store (durability.checkpoint); default false = stateless rebuild + reconcile. */
  checkpoint: v.optional(v.boolean()),
  /** Reactivity over HTTP: server push on the GET stream (default false: HTTP servers request/response only). */
  httpReactivity: v.optional(v.boolean()),
  /** Removed: the gemini adapter is used when `model.dialect` is "gemini", and only then. */
  gemini: v.optional(v.never('removed: choosing model.dialect "gemini" is the switch; delete this key')),
  /** Server notifications: the served agent declares logging and emits notifications/message and progress. */
  serverNotifications: v.optional(v.boolean()),
  /** Cron: "utc" (default) 5-field UTC cron, no tz/catch-up/job store; "timezones" the richer cron. */
  cron: v.optional(
    v.pipe(
      v.string('"utc" or "timezones"'),
      // The old values named planning codes; the line never repeats the value it got (see format-issue.ts).
      v.check(
        (s) => !/^v[12]$/.test(s),
        'renamed: the 5-field UTC cron is now "utc", the richer one (time zones, catch-up, job store) "timezones"',
      ),
      v.picklist(["utc", "timezones"], '"utc" (5-field, UTC) or "timezones" (time zones, catch-up, job store)'),
    ),
  ),
});
