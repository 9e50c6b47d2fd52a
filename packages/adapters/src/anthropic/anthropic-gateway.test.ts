import { runAdapterCases } from "../adapter.case.ts";
import { createAnthropic } from "./anthropic-language-model.ts";

runAdapterCases("anthropic", (settings) => createAnthropic({ ...settings, model: "claude-case" }));
