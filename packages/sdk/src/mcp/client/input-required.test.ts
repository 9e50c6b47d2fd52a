import { describe, expect, test } from "bun:test";
import { MAX_INPUT_ROUNDS, withInputRounds } from "./input-required.ts";

const elicit = {
  method: "elicitation/create",
  params: { mode: "form", message: "Name?", requestedSchema: { type: "object", properties: { n: { type: "string" } } } },
};

describe("input-required rounds (client side)", () => {
  test("answers every input request with the policy, echoes requestState exactly, retries until complete", async () => {
    const sent: Record<string, unknown>[] = [];
    const deprecated: string[] = [];
    const result = await withInputRounds(
      "tools/call",
      async (retry) => {
        sent.push(retry);
        if (sent.length === 1)
          return {
            resultType: "input_required",
            inputRequests: { who: elicit, where: { method: "roots/list" } },
            requestState: "opaque:1",
          };
        return { resultType: "complete", content: [] };
      },
      { elicitation: async () => ({ action: "accept", content: { n: "ada" } }), roots: [{ uri: "file:///w", name: "w" }] },
      [{ uri: "file:///w", name: "w" }],
      undefined,
      (m) => deprecated.push(m),
    );
    expect(result).toEqual({ resultType: "complete", content: [] });
    // Roots are deprecated in 2026-07-28 (still answered); elicitation is not.
    expect(deprecated).toEqual(["roots/list"]);
    expect(sent).toEqual([
      {},
      {
        inputResponses: { who: { action: "accept", content: { n: "ada" } }, where: { roots: [{ uri: "file:///w", name: "w" }] } },
        requestState: "opaque:1",
      },
    ]);
  });

  test("a request for input the client does not offer is refused; a result without requestState gets none back", async () => {
    await expect(
      withInputRounds(
        "tools/call",
        async () => ({
          resultType: "input_required",
          inputRequests: { s: { method: "sampling/createMessage", params: { messages: [], maxTokens: 1 } } },
        }),
        {},
        [],
      ),
    ).rejects.toThrow(/sampling\/createMessage input, which this client does not offer/);
    const sent: Record<string, unknown>[] = [];
    await withInputRounds(
      "prompts/get",
      async (retry) => (sent.push(retry), sent.length === 1 ? { resultType: "input_required", requestState: "s" } : { messages: [] }),
      {},
      [],
    );
    expect(sent).toEqual([{}, { requestState: "s" }]);
  });

  test(`a server that keeps asking is cut off after ${MAX_INPUT_ROUNDS} rounds`, async () => {
    let calls = 0;
    await expect(
      withInputRounds("resources/read", async () => (calls++, { resultType: "input_required", requestState: "again" }), {}, []),
    ).rejects.toThrow(/still asked for input/);
    expect(calls).toBe(MAX_INPUT_ROUNDS + 1);
  });
});
