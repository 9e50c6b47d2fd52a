/**
 * The code under test: a tiny tool-calling loop over an OpenAI-compatible chat completions endpoint,
 * written with nothing but `fetch`. It offers one tool, runs it when the model asks, and returns the
 * model's final text. It retries a 429 once, after the Retry-After the server asked for.
 */

/** Where the model lives and how to reach it. */
export interface BotConfig {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** The local tool the model may call. */
  lookUpWeather: (city: string) => string;
}

interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

const TOOLS = [
  {
    type: "function",
    function: {
      name: "look_up_weather",
      description: "Current weather for a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];

async function complete(config: BotConfig, messages: ChatMessage[], retries = 1): Promise<ChatMessage> {
  const response = await fetch(`${config.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${config.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: config.model, messages, tools: TOOLS }),
  });
  if (response.status === 429 && retries > 0) {
    await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get("retry-after") ?? "1") * 1000));
    return complete(config, messages, retries - 1);
  }
  if (!response.ok) throw new Error(`model endpoint answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { choices: Array<{ message: ChatMessage }> };
  const message = body.choices[0]?.message;
  if (message === undefined) throw new Error("model endpoint answered no choice");
  return message;
}

/** Ask about the weather; at most `maxTurns` model calls. */
export async function askWeatherBot(config: BotConfig, question: string, maxTurns = 4): Promise<string> {
  const messages: ChatMessage[] = [
    { role: "system", content: "Answer weather questions. Use the tool." },
    { role: "user", content: question },
  ];
  for (let turn = 0; turn < maxTurns; turn += 1) {
    const reply = await complete(config, messages);
    messages.push(reply);
    if (!reply.tool_calls?.length) return reply.content ?? "";
    for (const call of reply.tool_calls) {
      const { city } = JSON.parse(call.function.arguments) as { city: string };
      messages.push({ role: "tool", tool_call_id: call.id, content: config.lookUpWeather(city) });
    }
  }
  throw new Error(`no answer within ${maxTurns} turns`);
}
