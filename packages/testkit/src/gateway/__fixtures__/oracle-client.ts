/** Official SDK clients pointed at fake gateways, for the oracle tests; each gateway is closed after its test. */
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { startFakeGateway } from "../fake-gateway.ts";
import type { FakeGateway, FakeGatewayOptions } from "../types.ts";

/** Gateways started by the current test. */
export const openGateways: FakeGateway[] = [];

/** Close what the test started. */
export const closeGateways = () => Promise.all(openGateways.splice(0).map((gateway) => gateway.close()));

async function gateway(options: FakeGatewayOptions): Promise<FakeGateway> {
  const started = await startFakeGateway(options);
  openGateways.push(started);
  return started;
}

/** An anthropic gateway and the official client. */
export async function anthropicPair(options: Omit<FakeGatewayOptions, "dialect">) {
  const g = await gateway({ dialect: "anthropic", ...options });
  return { gateway: g, client: new Anthropic({ baseURL: g.url, apiKey: "sk-ant-test", maxRetries: 0, logLevel: "off" }) };
}

/** An openai gateway and the official client. */
export async function openAiPair(options: Omit<FakeGatewayOptions, "dialect">) {
  const g = await gateway({ dialect: "openai", ...options });
  return { gateway: g, client: new OpenAI({ baseURL: g.url, apiKey: "sk-test", maxRetries: 0, logLevel: "off" }) };
}

/** A gemini gateway and the official client. */
export async function geminiPair(options: Omit<FakeGatewayOptions, "dialect">) {
  const g = await gateway({ dialect: "gemini", ...options });
  return { gateway: g, client: new GoogleGenAI({ apiKey: "AIza-test", httpOptions: { baseUrl: g.url } }) };
}

/** The error `promise` rejects with; throws when it resolves. */
export async function rejection(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection, got a result");
}
