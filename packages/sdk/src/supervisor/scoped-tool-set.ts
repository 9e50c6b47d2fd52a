/**
 * A ToolSet narrowed by a chain of scopes: a tool is listed and callable only when every scope on the way
 * down from the root allows it. This is how a child's scope is "never wider than the parent's" without
 * having to intersect glob sets: the child keeps all of them and checks each.
 */
import { compileScope, type RunScope, type ScopeCheck } from "../loop/scope.ts";
import type { ToolCallContext, ToolCallOutcome, ToolDescriptor, ToolSet } from "../loop/tools.ts";

/** Narrow `inner` to the tools every scope of `scopes` allows. */
export class ScopedToolSet implements ToolSet {
  private readonly checks: ScopeCheck[];

  constructor(
    private readonly inner: ToolSet,
    scopes: RunScope[],
  ) {
    this.checks = scopes.map((s) => compileScope(s));
  }

  /** Whether every scope allows `name`. */
  allows(name: string): boolean {
    return this.checks.every((check) => check(name));
  }

  async list(): Promise<ToolDescriptor[]> {
    return (await this.inner.list()).filter((t) => this.allows(t.name));
  }

  call(name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolCallOutcome> {
    if (!this.allows(name))
      return Promise.resolve({ text: `tool "${name}" is outside this subagent's scope; do not call it again`, isError: true });
    return this.inner.call(name, args, ctx);
  }
}
