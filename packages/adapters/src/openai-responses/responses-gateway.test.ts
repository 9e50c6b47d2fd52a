import { runAdapterCases } from "../__fixtures__/adapter.case.ts";
import { createOpenAIResponses } from "./responses-language-model.ts";

runAdapterCases("responses", (settings) => createOpenAIResponses({ ...settings, model: "gpt-case" }));
