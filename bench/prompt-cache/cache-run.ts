/**
 * One 10-turn tool-using run of the agentic loop against an in-process fake gateway, with prompt caching
 * on or off, returning the input tokens the gateway reported and how they split (uncached, cache read,
 * cache write). The gateway's cache model decides the split; nothing here is a provider's real number.
 */
import { createModel, type ModelDialect } from "@agentd/adapters";
import { runLoop, type ToolSet } from "@agentd/sdk/loop";
import type { Usage } from "@agentd/sdk/model";
import { startFakeGateway, type Dialect, type Turn } from "@agentd/testkit";

/** The real APIs' smallest cacheable prefix (Claude Sonnet, OpenAI, Gemini 2.5 Flash), in tokens. */
export const MIN_CACHEABLE_TOKENS = 1024;

const CITIES = ["Paris", "Oslo", "Rome", "Lima", "Quito", "Accra", "Hanoi", "Perth", "Turin"];

/** Nine tool turns then the answer: ten model requests, as in the 10-turn loop. */
export const TEN_TURNS: Turn[] = [
  ...CITIES.map((city) => ({ toolCalls: [{ name: "get_weather", arguments: { city } }] })),
  { text: "Warmest: Accra." },
];

/** A system prompt of a realistic size (~3 KB): what an operator's instructions plus the tool notice come to. */
const INSTRUCTIONS = Array.from(
  { length: 24 },
  (_, i) =>
    `Rule ${i + 1}: check every city with get_weather before comparing, quote the temperature in °C, and say which reading is older than an hour.`,
).join("\n");

const describe = (what: string) => `${what}. Returns a short plain-text report; fails with a message when the city is unknown. `.repeat(4);

/** Four tools with descriptions of the usual length; the weather answers are ~300 characters. */
function tools(): ToolSet {
  const names = ["get_weather", "get_forecast", "get_time", "get_air_quality"];
  return {
    list: async () =>
      names.map((name) => ({
        name,
        description: describe(`The ${name.replaceAll("_", " ")} of a city`),
        inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      })),
    call: async (_name, args) => ({
      text: `${String(args.city)}: 21°C, wind 12 km/h NW, humidity 48 %, pressure 1016 hPa, visibility 10 km, UV 3, observed 10 minutes ago at the central station. `.repeat(
        2,
      ),
      isError: false,
    }),
  };
}

/** Input tokens of one run. */
export interface CacheRunFigures {
  requests: number;
  usage: Usage;
}

/** Run the 10-turn loop. `caching` off: Anthropic sends no breakpoints; the others talk to a gateway without a cache. */
export async function cacheRun(dialect: Dialect, caching: boolean): Promise<CacheRunFigures> {
  // OpenAI and Gemini cache automatically (a client cannot opt out); "off" is a server with no cache.
  const minTokens = caching || dialect === "anthropic" ? MIN_CACHEABLE_TOKENS : Number.MAX_SAFE_INTEGER;
  const gateway = await startFakeGateway({ dialect, script: TEN_TURNS, promptCache: { minTokens } });
  try {
    const model = createModel({
      dialect: dialect as ModelDialect,
      baseURL: gateway.url,
      apiKey: "bench-key",
      model: `${dialect}-bench`,
      ...(dialect === "anthropic" ? { promptCache: { enabled: caching } } : {}),
    });
    const result = await runLoop({
      model,
      tools: tools(),
      instructions: INSTRUCTIONS,
      input: `Which of ${CITIES.join(", ")} is warmest?`,
      runId: `bench-${dialect}`,
    });
    return { requests: gateway.requests.length, usage: result.usage };
  } finally {
    await gateway.close();
  }
}
