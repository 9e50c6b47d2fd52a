import { runAdapterCases } from "../__fixtures__/adapter.case.ts";
import { createGemini } from "./gemini-language-model.ts";

runAdapterCases("gemini", (settings) => createGemini({ ...settings, model: "gemini-case" }));
