/**
 * How a headless client answers `elicitation/create` when no person is there to ask. A policy is an
 * {@link ElicitationHandler} — `(params, ctx) => Promise<ElicitResult>` — so anything that can answer (a
 * person reached over an operator channel, a rules engine) plugs in the same way as the built-in ones:
 *
 * - `decline`: decline every request (the safe default once elicitation is declared).
 * - `cancel`: cancel every request.
 * - `defaults`: accept with the requested schema's `default` values when every required field has one
 *   (optional fields without one are left out); otherwise decline.
 * - `answers`: accept with static answers from the configuration (field name → value), completed by the
 *   schema's defaults; accepted only when the result satisfies the requested schema, otherwise declined.
 * - URL mode (the person visits a URL out of band): declared only when configured (`url: "log"`), then
 *   accepted and the URL logged for an operator to open; never declared otherwise, so such a request is
 *   refused with -32602 by the capability map.
 */
import { validateJsonSchema } from "../../_internal/json-schema.ts";
import type { Logger } from "../../log.ts";
import type { ElicitRequestParams, ElicitResult } from "../../wire/index.ts";
import type { ElicitationHandler, ElicitationMode } from "../capabilities.ts";

/** The built-in form policies, by name. */
export type ElicitationPolicyName = "decline" | "cancel" | "defaults" | "answers";

/** A configured elicitation policy. */
export interface ElicitationPolicyConfig {
  policy: ElicitationPolicyName;
  /** For `answers`: field name → value. */
  answers?: Record<string, string | number | boolean | string[]>;
  /** URL mode: `"log"` declares it, accepts and logs the URL; absent: not declared. */
  url?: "log";
}

type Value = string | number | boolean | string[];
type FormParams = Extract<ElicitRequestParams, { requestedSchema: unknown }>;

/** The schema's defaults, or undefined when a required field has none. */
export function defaultsOf(params: FormParams): Record<string, Value> | undefined {
  const content: Record<string, Value> = {};
  for (const [name, field] of Object.entries(params.requestedSchema.properties)) {
    const d = (field as { default?: unknown }).default;
    if (d !== undefined) content[name] = d as Value;
  }
  const missing = (params.requestedSchema.required ?? []).some((r) => !(r in content));
  return missing ? undefined : content;
}

/** Answers from `answers` for the requested fields, completed by defaults; undefined when not valid. */
export function answersFor(params: FormParams, answers: Record<string, Value>): Record<string, Value> | undefined {
  const content: Record<string, Value> = {};
  for (const [name, field] of Object.entries(params.requestedSchema.properties)) {
    const value = Object.hasOwn(answers, name) ? answers[name] : (field as { default?: unknown }).default;
    if (value !== undefined) content[name] = value as Value;
  }
  return validateJsonSchema(params.requestedSchema, content).valid ? content : undefined;
}

/** The handler and the modes to declare for a configured policy. */
export function elicitationPolicy(
  config: ElicitationPolicyConfig,
  logger?: Logger,
): { handler: ElicitationHandler; modes: ElicitationMode[] } {
  const form = (params: FormParams): ElicitResult => {
    switch (config.policy) {
      case "decline":
        return { action: "decline" };
      case "cancel":
        return { action: "cancel" };
      case "defaults": {
        const content = defaultsOf(params);
        return content ? { action: "accept", content } : { action: "decline" };
      }
      case "answers": {
        const content = answersFor(params, config.answers ?? {});
        if (!content) logger?.warn("elicitation.declined", { reason: "the configured answers do not satisfy the requested schema" });
        return content ? { action: "accept", content } : { action: "decline" };
      }
    }
  };
  const handler: ElicitationHandler = async (params) => {
    if (params.mode === "url") {
      logger?.warn("elicitation.url", { url: params.url, elicitationId: params.elicitationId, message: params.message });
      return { action: "accept" };
    }
    const result = form(params as FormParams);
    logger?.info("elicitation.answered", { policy: config.policy, action: result.action });
    return result;
  };
  return { handler, modes: config.url === "log" ? ["form", "url"] : ["form"] };
}

/** A form question routed to a person (the `operator` policy): the server that asks, its words, its schema. */
export interface OperatorQuestion {
  server: string;
  message: string;
  requestedSchema: Record<string, unknown>;
}

/** Asks a person and resolves with their answer; `signal` ends the wait (the run's deadline, a cancel). */
export type OperatorAsk = (question: OperatorQuestion, signal: AbortSignal) => Promise<ElicitResult>;

/**
 * The `operator` policy for one server: a form request is put to whoever `reach()` finds for it (the
 * person behind the run the request belongs to, e.g. an A2A operator answering on the run's task), and
 * waits for their answer until `signal` ends it (then `cancel`). Nobody reachable — a run not served
 * over A2A, no operator configured — degrades to `decline`, with a log line saying why. URL mode is not
 * declared by this policy.
 */
export function operatorElicitation(
  server: string,
  reach: () => { ask: OperatorAsk; signal: AbortSignal } | { reason: string },
  logger?: Logger,
): ElicitationHandler {
  return async (params, ctx) => {
    const form = params as FormParams;
    const found = reach();
    if ("reason" in found) {
      logger?.warn("elicitation.declined", { policy: "operator", server, reason: found.reason });
      return { action: "decline" };
    }
    const signal = AbortSignal.any([found.signal, ctx.signal]);
    const question: OperatorQuestion = {
      server,
      message: form.message,
      requestedSchema: form.requestedSchema as unknown as Record<string, unknown>,
    };
    const result = await Promise.race([
      found.ask(question, signal).catch((): ElicitResult => ({ action: "cancel" })),
      new Promise<ElicitResult>((resolve) =>
        signal.aborted
          ? resolve({ action: "cancel" })
          : signal.addEventListener("abort", () => resolve({ action: "cancel" }), { once: true }),
      ),
    ]);
    logger?.info("elicitation.answered", { policy: "operator", server, action: result.action });
    return result;
  };
}
