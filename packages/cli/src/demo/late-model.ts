/**
 * A model bound after its agent is built. `agentd demo` builds the agent — and so starts its MCP server, a
 * child process that takes a while to come up — before the fake gateway the model talks to has an address;
 * the run starts only once the real model is bound, and nothing asks the model anything before that.
 */
import { AgentdError, type LanguageModel } from "@agentd/sdk";

/** A {@link LanguageModel} that forwards to the one given to `bind`. */
export interface LateModel extends LanguageModel {
  /** The model every call goes to from now on. */
  bind(model: LanguageModel): void;
}

/** A model to bind later; used before `bind`, it throws `E_USAGE`. */
export function lateModel(): LateModel {
  let bound: LanguageModel | undefined;
  const target = (): LanguageModel => {
    if (bound === undefined) throw new AgentdError("E_USAGE", "the model was used before it was bound");
    return bound;
  };
  return {
    get provider() {
      return target().provider;
    },
    get modelId() {
      return target().modelId;
    },
    get supportsTools() {
      return target().supportsTools;
    },
    generate: (request) => target().generate(request),
    stream: (request) => target().stream(request),
    bind(model) {
      bound = model;
    },
  };
}
