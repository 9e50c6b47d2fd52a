import { runAdapterCases } from "../__fixtures__/adapter.case.ts";
import { createAnthropic } from "./anthropic-language-model.ts";

runAdapterCases("anthropic", (settings) => createAnthropic({ ...settings, model: "claude-case" }));
