/**
 * `agentd mcp SERVER ACTION …`: poke one configured MCP server by hand — list its tools, resources and
 * prompts, call a tool, read a resource, get a prompt. The server comes from the config's `mcpServers`
 * (flags > env > file); it is started (or dialled) for this one command and closed before exit.
 */
import {
  AgentdError,
  capabilitiesFromConfig,
  connectServer,
  createLogger,
  McpError,
  resolveConfig,
  scrubSecrets,
  type CapabilityConfig,
  type McpClient,
  type RequestOptions,
} from "@agentd/sdk";
import { tokenStoreFromConfig } from "@agentd/sdk/agent";
import { defineCommand } from "citty";
import { EXIT } from "../exit-codes.ts";
import { promptsSwitchedOff } from "../modes/prompts-switch.ts";
import { abortOnSignals } from "../signals.ts";
import { stderrLogger } from "../telemetry.ts";
import { buildPromptArguments, buildToolArguments, readStdin, repeatedFlag } from "./mcp-args.ts";
import {
  renderCallResult,
  renderContents,
  renderPrompt,
  renderPrompts,
  renderResources,
  renderServers,
  renderTools,
} from "./mcp-render.ts";
import { durationFlag, MCP_CONFIG_FORMAT_HELP, MCP_CONFIG_HELP, mcpConfigOverrides } from "./shared-args.ts";
import { reportConfigNotes } from "../config-report.ts";
import { forTerminal } from "../terminal-text.ts";

export const mcpExamples = [
  "agentd mcp                                        # the configured servers",
  "agentd mcp fs tools                               # tools: name, arguments, description",
  "agentd mcp fs tools --json                        # with the input schemas",
  `agentd mcp fs call read_file '{"path":"/data/x"}'`,
  "agentd mcp fs call read_file --arg path=/data/x   # typed by the tool's input schema",
  "agentd mcp fs call search --arg query=inbox --arg filters:='{\"unread\":true}'",
  "agentd mcp fs resources",
  "agentd mcp fs read file:///data/x",
  "agentd mcp fs prompts",
  "agentd mcp fs get-prompt review --arg file=main.ts",
  "agentd mcp fs complete review language py          # completion/complete of a prompt's argument",
  "agentd mcp fs complete 'file:///{path}' path /da     # … or of a resource template's variable",
];

/** What each action needs, for a clear usage line before anything is started. */
const ACTIONS: Record<string, { target?: string; prompts?: boolean; completion?: boolean }> = {
  tools: {},
  call: { target: "TOOL" },
  resources: {},
  read: { target: "URI" },
  prompts: { prompts: true },
  "get-prompt": { target: "PROMPT", prompts: true },
  complete: { target: "PROMPT_OR_TEMPLATE", prompts: true, completion: true },
};

type Out = (s: string) => void;
interface Poke {
  client: McpClient;
  server: string;
  target: string;
  input: string | undefined;
  args: string[];
  json: boolean;
  request: RequestOptions;
  out: Out;
  width: number | undefined;
  /** complete: what the argument's value starts with. */
  prefix: string;
}

const asJson = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

/** The action itself, on a connected client. Failures throw (the CLI maps them to exit codes). */
async function perform(action: string, p: Poke): Promise<number> {
  const { client, out, json, width } = p;
  switch (action) {
    case "tools": {
      const tools = await client.listTools(p.request);
      out(json ? asJson(tools) : tools.length ? renderTools(tools, width) : `${p.server} offers no tools\n`);
      return EXIT.ok;
    }
    case "call": {
      const tools = await client.listTools(p.request);
      const tool = tools.find((t) => t.name === p.target);
      if (!tool && tools.length > 0)
        throw new AgentdError("E_USAGE", `${p.server} has no tool '${p.target}'; its tools: ${tools.map((t) => t.name).join(", ")}`);
      const input = p.input === "-" ? await readStdin() : p.input;
      const args = buildToolArguments(input, p.args, tool?.inputSchema);
      const result = await client.callTool(p.target, args, {
        ...p.request,
        onprogress: (pr) =>
          process.stderr.write(
            `${forTerminal(`progress ${pr.progress}${pr.total !== undefined ? `/${pr.total}` : ""}${pr.message ? ` ${pr.message}` : ""}`)}\n`,
          ),
      });
      out(json ? asJson(result) : renderCallResult(result));
      // The content above is the tool's answer either way; the exit code (1) and one stderr line say it failed.
      if (result.isError) throw new AgentdError("E_TOOL", `${p.server}/${p.target} returned an error result (isError)`);
      return EXIT.ok;
    }
    case "resources": {
      const [resources, templates] = await Promise.all([client.listResources(p.request), client.listResourceTemplates(p.request)]);
      if (json) out(asJson({ resources, resourceTemplates: templates }));
      else out(resources.length + templates.length ? renderResources(resources, templates, width) : `${p.server} offers no resources\n`);
      return EXIT.ok;
    }
    case "read": {
      const result = await client.readResource(p.target, p.request);
      out(json ? asJson(result) : renderContents(result));
      return EXIT.ok;
    }
    case "prompts": {
      const prompts = await client.listPrompts(p.request);
      out(json ? asJson(prompts) : prompts.length ? renderPrompts(prompts, width) : `${p.server} offers no prompts\n`);
      return EXIT.ok;
    }
    case "complete": {
      // A template URI (it has a scheme or a {variable}) names a resource template; anything else a prompt.
      const ref = /[{:]/.test(p.target) ? { type: "ref/resource", uri: p.target } : { type: "ref/prompt", name: p.target };
      const context = buildPromptArguments(p.args);
      const result = await client.complete(
        {
          ref,
          argument: { name: p.input ?? "", value: p.prefix },
          context: Object.keys(context).length ? { arguments: context } : undefined,
        } as never,
        p.request,
      );
      out(json ? asJson(result) : result.completion.values.map((v) => `${forTerminal(String(v))}\n`).join(""));
      return EXIT.ok;
    }
    default: {
      const result = await client.getPrompt(p.target, buildPromptArguments(p.args), p.request);
      out(json ? asJson(result) : renderPrompt(result));
      return EXIT.ok;
    }
  }
}

/** A server's JSON-RPC refusal as one line: the person's mistake (exit 2) or the server's failure (exit 1). */
function refusal(server: string, action: string, e: McpError): AgentdError {
  // -32602 invalid params (unknown tool/prompt, bad arguments), -32002 resource not found, -32601 no such method.
  const mistake = e.code === -32602 || e.code === -32002 || e.code === -32601;
  return new AgentdError(mistake ? "E_USAGE" : "E_RUN_FAILED", `${server} refused ${action}: ${e.message} (${e.code})`, { cause: e });
}

/** No servers configured: say how to add one, as a command that works as typed. */
function noServers(file: string | undefined): string {
  const server = "--server fs='npx -y @modelcontextprotocol/server-filesystem /data'";
  if (!file) return `no MCP servers configured (no agentd.json here): e.g. agentd init --yes ${server}`;
  const config = file === "agentd.json" ? "" : ` --config ${file}`;
  return `no MCP servers configured in ${file}: add one under "mcpServers", e.g. agentd init --force --yes${config} ${server}`;
}

export const mcpCommand = defineCommand({
  meta: { name: "mcp", description: "Poke a configured MCP server by hand: tools, call, resources, read, prompts, get-prompt, complete." },
  args: {
    server: { type: "positional", required: false, description: "A server from mcpServers (omit to list them)" },
    action: { type: "positional", required: false, description: "tools (default), call, resources, read, prompts, get-prompt or complete" },
    target: { type: "positional", required: false, description: "call: the TOOL; read: the URI; get-prompt: the PROMPT" },
    input: {
      type: "positional",
      required: false,
      description: "call: the arguments as a JSON object ('-' reads stdin); complete: the ARGument",
    },
    prefix: { type: "positional", required: false, description: "complete: what the argument's value starts with (default empty)" },
    arg: { type: "string", alias: "a", description: "call/get-prompt: KEY=VALUE (typed by the tool's schema) or KEY:=JSON; repeatable" },
    json: { type: "boolean", description: "Print the server's answer as JSON" },
    config: { type: "string", alias: "c", description: "Config file (default: AGENT_CONFIG, else ./agentd.json)" },
    "mcp-config": { type: "string", description: MCP_CONFIG_HELP },
    "mcp-config-format": { type: "string", description: MCP_CONFIG_FORMAT_HELP },
    timeout: {
      type: "string",
      description:
        "Timeout of the connect, and of each request without a response or progress, e.g. 30s (defaults: 30s to connect; the server's timeout, else limits.mcpTimeout, else 60s a request)",
    },
  },
  async run({ args, rawArgs }) {
    const resolved = await resolveConfig({ configPath: args.config, overrides: mcpConfigOverrides(rawArgs) });
    // Quiet by default — warnings, errors and what the server itself prints on stderr (why it died).
    const base = stderrLogger(process.env.AGENT_LOG_LEVEL ? {} : { level: "info" });
    const logger = process.env.AGENT_LOG_LEVEL
      ? base
      : createLogger(
          ({ ts: _ts, level, event, ...fields }) => {
            if (level === "warn" || level === "error" || event === "mcp.stderr") base.log(level, event, fields);
          },
          { level: "info" },
        );
    // Said before anything else, in `agentd run`'s words: the servers left out of --mcp-config files, the keys not taken.
    // (A server named on the command line that was left out gets the error below instead.)
    const { [args.server ?? ""]: _named, ...skippedServers } = resolved.skippedServers ?? {};
    reportConfigNotes({ ...resolved, skippedServers }, logger);
    const servers = resolved.config.mcpServers ?? {};
    const names = Object.keys(servers);
    const width = process.stdout.isTTY ? process.stdout.columns : undefined;
    const out: Out = (s) => void process.stdout.write(scrubSecrets(s));
    if (!args.server) {
      if (names.length === 0) throw new AgentdError("E_USAGE", noServers(resolved.file));
      out(renderServers(servers, width));
      return EXIT.ok;
    }
    const skipped = resolved.skippedServers?.[args.server];
    if (skipped) throw new AgentdError("E_CONFIG_INVALID", skipped);
    const config = servers[args.server];
    if (config?.disabled === true)
      throw new AgentdError(
        "E_USAGE",
        `MCP server '${args.server}' is disabled ("disabled": true in its entry): set it to false or remove it to use the server`,
      );
    if (!config)
      throw new AgentdError(
        "E_USAGE",
        `unknown MCP server '${args.server}': ${names.length ? `configured servers are ${names.join(", ")}` : `none are configured${resolved.file ? ` in ${resolved.file}` : " (no agentd.json here; pass --config)"}`}`,
      );
    const action = args.action ?? "tools";
    const spec = ACTIONS[action];
    if (!spec) throw new AgentdError("E_USAGE", `unknown action '${action}': use one of ${Object.keys(ACTIONS).join(", ")}`);
    if (action === "complete" && !args.input)
      throw new AgentdError(
        "E_USAGE",
        `complete needs an argument name: agentd mcp ${args.server} complete ${args.target ?? "PROMPT_OR_TEMPLATE"} ARG [PREFIX]`,
      );
    if (spec.target && !args.target)
      throw new AgentdError("E_USAGE", `${action} needs a ${spec.target}: agentd mcp ${args.server} ${action} ${spec.target}`);
    const off = spec.prompts ? promptsSwitchedOff(args.server, config) : undefined;
    if (off) throw off;
    const pairs = repeatedFlag(rawArgs, "arg", "a");
    const timeoutMs = args.timeout === undefined ? undefined : durationFlag("--timeout", args.timeout, "30s");
    if (timeoutMs === 0) throw new AgentdError("E_USAGE", "--timeout must be more than 0 (e.g. --timeout 30s)");

    // A human asked for prompts explicitly, so prompts are on for this command only; the rest (tasks, roots,
    // elicitation) follows the config, exactly as for `agentd run`.
    const capabilities: CapabilityConfig = {
      ...capabilitiesFromConfig(resolved.config),
      prompts: spec.prompts || undefined,
      completion: spec.completion || undefined,
    };
    const signals = abortOnSignals();
    let client: McpClient | undefined;
    const tokenStore = tokenStoreFromConfig(resolved.config, logger);
    try {
      // --timeout wins over the entry's `timeout`, which wins over `limits.mcpTimeout`.
      const limits = resolved.config.limits ?? {};
      client = await connectServer(args.server, timeoutMs ? { ...config, timeout: timeoutMs } : config, {
        logger,
        tokenStore,
        capabilities,
        runId: resolved.runId,
        connectTimeoutMs: timeoutMs || undefined,
        requestTimeoutMs: limits.mcpTimeout,
        maxTotalTimeoutMs: limits.mcpMaxTotalTimeout,
      });
      const poke: Poke = {
        client,
        server: args.server,
        target: args.target ?? "",
        input: args.input,
        args: pairs,
        json: args.json === true,
        request: { signal: signals.signal },
        out,
        width,
        prefix: args.prefix ?? "",
      };
      return await perform(action, poke);
    } catch (e) {
      const sig = signals.received();
      if (sig) throw new AgentdError("E_ABORTED", `interrupted by ${sig}`, { data: { signal: sig } });
      throw McpError.isInstance(e) ? refusal(args.server, action, e) : e;
    } finally {
      signals.dispose();
      await client?.close();
      await tokenStore?.close();
    }
  },
});
