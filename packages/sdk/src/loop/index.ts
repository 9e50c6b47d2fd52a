/** The agentic loop: model interface, tools, budgets. */
export * from "./model.ts";
export * from "./tools.ts";
