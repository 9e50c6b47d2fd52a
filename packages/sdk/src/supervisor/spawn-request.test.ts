/**
 * The spawn request has one source, its JSON Schema: the model's tool schema is that schema without the
 * code-only fields (plus `async`), and what the supervisor accepts is exactly what that schema accepts —
 * checked case by case against ajv, an independent validator, on both the model's and the code's side.
 */
import { describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import { buildSpawnPayload, CODE_ONLY_FIELDS, SPAWN_INPUT_SCHEMA, SPAWN_REQUEST_SCHEMA, spawnRequestProblem } from "./spawn-request.ts";
import { callSubagentTool, SUBAGENT_TOOLS } from "./subagent-tools.ts";
import type { Supervisor } from "./supervisor.ts";

const ajv = new Ajv2020({ strict: false, validateFormats: false });
const parent = { scopes: [], limits: {}, depth: 1 };
const accepts = (request: unknown): boolean => {
  try {
    buildSpawnPayload(request, parent, { runId: "r.1" });
    return true;
  } catch {
    return false;
  }
};

/** Requests a caller might write, valid and not. */
const CASES: unknown[] = [
  { instruction: "find a hotel" },
  { instruction: "" },
  { instruction: "   " },
  { instruction: 42 },
  {},
  "find a hotel",
  null,
  { instruction: "x", seed: { city: "Lisbon" } },
  { instruction: "x", seed: [1, 2] },
  { instruction: "x", scope: { allow: ["fs/*"] } },
  { instruction: "x", scope: { allow: "fs/*" } },
  { instruction: "x", scope: { deny: ["fs/*"] } },
  { instruction: "x", limits: { maxTurns: 3, maxTokens: 1000 } },
  { instruction: "x", limits: { maxTurns: 0 } },
  { instruction: "x", limits: { maxTurns: 2.5 } },
  { instruction: "x", limits: { maxTokens: 1.5 } },
  { instruction: "x", limits: { deadline: "90s" } },
  { instruction: "x", limits: { deadline: "1h30m" } },
  { instruction: "x", limits: { deadline: " 5m " } },
  { instruction: "x", limits: { deadline: "0s" } },
  { instruction: "x", limits: { deadline: "90" } },
  { instruction: "x", limits: { deadline: "soon" } },
  { instruction: "x", limits: { deadline: 90_000 } },
  { instruction: "x", limits: { deadline: `${"9".repeat(60)}d` } },
  { instruction: "x", limits: { maxCostUsd: 0.25 } },
  { instruction: "x", limits: { maxCostUsd: 0 } },
  { instruction: "x", limits: { maxCostUsd: -1 } },
  { instruction: "x", limits: { toolTimeoutMs: 5000 } },
  { instruction: "x", limits: { toolTimeoutMs: 0 } },
  { instruction: "x", limits: { tokens: 5 } },
  { instruction: "x", model: "small-model" },
  { instruction: "x", model: "" },
  { instruction: "x", outputSchema: { type: "object", properties: { city: { type: "string" } } } },
  { instruction: "x", outputSchema: "an object" },
  { instruction: "x", runId: "parent.child-1" },
  { instruction: "x", runId: "" },
  { instruction: "x", async: true },
  { instruction: "x", async: "yes" },
  { instruction: "x", colour: "blue" },
];

describe("the spawn request, from one schema", () => {
  test("the model's tool schema is the request's without the code-only fields, plus async", () => {
    const modelFields = Object.keys((SPAWN_INPUT_SCHEMA as { properties: object }).properties).sort();
    const requestFields = Object.keys(SPAWN_REQUEST_SCHEMA.properties).filter((f) => !(CODE_ONLY_FIELDS as readonly string[]).includes(f));
    expect(modelFields).toEqual([...requestFields, "async"].sort());
    expect(modelFields).toEqual(expect.arrayContaining(["outputSchema", "limits"]));
    const limits = (SPAWN_INPUT_SCHEMA as { properties: { limits: { properties: object } } }).properties.limits.properties;
    expect(Object.keys(limits).sort()).toEqual(["deadline", "maxCostUsd", "maxTokens", "maxTurns", "toolTimeoutMs"]);
    expect(modelFields).not.toContain("runId");
    // The subagent.spawn tool offers exactly that schema.
    expect(SUBAGENT_TOOLS.find((t) => t.name === "subagent.spawn")?.inputSchema).toBe(SPAWN_INPUT_SCHEMA);
  });

  test("what the supervisor accepts from code is exactly what the request schema accepts (ajv as the oracle)", () => {
    const check = ajv.compile(SPAWN_REQUEST_SCHEMA);
    const disagreements = CASES.filter((c) => !(c !== null && typeof c === "object" && "async" in c)).filter(
      (c) => check(c) !== accepts(c),
    );
    expect(disagreements).toEqual([]);
    expect(CASES.filter((c) => check(c)).length).toBeGreaterThan(10);
  });

  test("what subagent.spawn accepts from a model is exactly what the schema the model sees accepts", () => {
    const check = ajv.compile(SPAWN_INPUT_SCHEMA);
    const disagreements: unknown[] = [];
    for (const c of CASES) {
      const ours = spawnRequestProblem(c, SPAWN_INPUT_SCHEMA) === undefined;
      // The tool's input without `async` is what the supervisor is handed: it accepts all of it too.
      const handed = ours && c !== null && typeof c === "object" ? accepts(withoutAsync(c)) : ours;
      if (check(c) !== ours || ours !== handed) disagreements.push(c);
    }
    expect(disagreements).toEqual([]);
  });

  test("a model's run id is refused with one line naming the field; code may set it", async () => {
    const answer = await callSubagentTool({} as Supervisor, "subagent.spawn", { instruction: "x", runId: "mine" }, {});
    expect(answer).toEqual({
      text: "invalid spawn request: runId: chosen by the agent, never in a tool call; leave it out",
      isError: true,
    });
    expect(buildSpawnPayload({ instruction: "x", runId: "mine" }, parent, { runId: "r.1" }).runId).toBe("mine");
  });

  test("a refusal is one line naming the field", () => {
    expect(spawnRequestProblem({ instruction: " " })).toBe("instruction: instruction must not be empty");
    expect(spawnRequestProblem({ instruction: "x", limits: { deadline: "soon" } })).toBe(
      'limits.deadline: deadline must be a duration such as "90s"',
    );
    expect(spawnRequestProblem({ instruction: "x", limits: { maxCostUsd: 0 } })).toMatch(/^limits\.maxCostUsd: /);
    expect(spawnRequestProblem({ instruction: "x", colour: "blue" })).toBe("colour: not a field of a spawn request");
  });
});

function withoutAsync(c: object): object {
  const { async: _a, ...rest } = c as Record<string, unknown>;
  return rest;
}
