/**
 * The request shapes we send are the official `openai` package's: the compiler checks that every body
 * the adapter can build is a `ResponseCreateParams` (`tsc --noEmit` runs over this file).
 */
import { expect, expectTypeOf, test } from "bun:test";
import type {
  ResponseCreateParamsNonStreaming,
  ResponseCreateParamsStreaming,
  ResponseInputItem,
} from "openai/resources/responses/responses";
import type { ResponsesInputItem, ResponsesRequest } from "./responses-api.ts";

test("our request and input items are the official package's types", () => {
  expectTypeOf<ResponsesInputItem>().toExtend<ResponseInputItem>();
  // A plain assignment gives the compiler's own message, field by field, when a shape drifts.
  const whole = (body: Omit<ResponsesRequest, "stream">): ResponseCreateParamsNonStreaming => body;
  const streamed = (body: ResponsesRequest & { stream: true }): ResponseCreateParamsStreaming => body;
  expectTypeOf(whole).toBeFunction();
  expectTypeOf(streamed).toBeFunction();
  expect(true).toBe(true);
});
