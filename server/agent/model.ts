/** Which language model runs the agent, from AGENT_MODEL or the first provider key that is set (CONTRACT §1). */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createPerplexity } from "@ai-sdk/perplexity";
import type { LanguageModel, ToolSet } from "ai";

export const PROVIDERS = ["google", "openai", "anthropic", "perplexity", "openai-compatible"] as const;
export type Provider = (typeof PROVIDERS)[number];

const KEY_VARIABLE: Record<Exclude<Provider, "openai-compatible">, string> = {
  google: "GOOGLE_GENERATIVE_AI_API_KEY",
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  perplexity: "PERPLEXITY_API_KEY",
};

export const DEFAULT_MODEL: Record<Exclude<Provider, "openai-compatible">, string> = {
  google: "gemini-2.5-flash",
  openai: "gpt-4.1-mini",
  anthropic: "claude-sonnet-4-5",
  perplexity: "sonar-pro",
};

export type ModelEnv = Partial<Record<string, string | undefined>>;
export type ModelChoice = { provider: Provider; modelId: string; apiKey?: string; baseURL?: string };

export class ModelConfigError extends Error {}

/** Pure: the model the environment asks for, or a ModelConfigError saying what to set. */
export function chooseModel(e: ModelEnv): ModelChoice {
  const baseURL = e.AGENT_BASE_URL || undefined;
  if (e.AGENT_MODEL) {
    const at = e.AGENT_MODEL.indexOf(":");
    const provider = (at > 0 ? e.AGENT_MODEL.slice(0, at) : e.AGENT_MODEL) as Provider;
    const modelId = at > 0 ? e.AGENT_MODEL.slice(at + 1) : "";
    if (!PROVIDERS.includes(provider))
      throw new ModelConfigError(`AGENT_MODEL provider '${provider}' is not one of ${PROVIDERS.join(", ")}`);
    if (provider === "openai-compatible") {
      if (!modelId) throw new ModelConfigError("AGENT_MODEL=openai-compatible:<model> needs a model name");
      if (!baseURL) throw new ModelConfigError("AGENT_MODEL=openai-compatible needs AGENT_BASE_URL (e.g. http://localhost:11434/v1)");
      return { provider, modelId, baseURL, apiKey: e.AGENT_API_KEY || undefined };
    }
    const apiKey = e.AGENT_API_KEY || e[KEY_VARIABLE[provider]];
    if (!apiKey) throw new ModelConfigError(`AGENT_MODEL=${e.AGENT_MODEL} needs ${KEY_VARIABLE[provider]} (or AGENT_API_KEY)`);
    return { provider, modelId: modelId || DEFAULT_MODEL[provider], apiKey, baseURL };
  }
  for (const provider of Object.keys(KEY_VARIABLE) as (keyof typeof KEY_VARIABLE)[]) {
    const apiKey = e[KEY_VARIABLE[provider]];
    if (apiKey) return { provider, modelId: DEFAULT_MODEL[provider], apiKey, baseURL };
  }
  throw new ModelConfigError(
    "No model configured: set GOOGLE_GENERATIVE_AI_API_KEY, OPENAI_API_KEY, ANTHROPIC_API_KEY or PERPLEXITY_API_KEY, " +
      "or AGENT_MODEL=openai-compatible:<model> with AGENT_BASE_URL.",
  );
}

/** The model and the grounded-search tools its provider offers natively (none for openai-compatible). */
export function createModel(choice: ModelChoice): { model: LanguageModel; nativeSearch: ToolSet | null } {
  const { provider, modelId, apiKey, baseURL } = choice;
  switch (provider) {
    case "google": {
      const google = createGoogleGenerativeAI({ apiKey, baseURL });
      return { model: google(modelId), nativeSearch: { google_search: google.tools.googleSearch({}) } };
    }
    case "openai": {
      const openai = createOpenAI({ apiKey, baseURL });
      return { model: openai(modelId), nativeSearch: { web_search: openai.tools.webSearch({}) } as unknown as ToolSet };
    }
    case "anthropic": {
      const anthropic = createAnthropic({ apiKey, baseURL });
      return { model: anthropic(modelId), nativeSearch: { web_search: anthropic.tools.webSearch_20250305({ maxUses: 5 }) } };
    }
    case "perplexity": {
      // Sonar models search on every call; their citations come back as sources.
      return { model: createPerplexity({ apiKey, baseURL })(modelId), nativeSearch: {} };
    }
    case "openai-compatible":
      return { model: createOpenAICompatible({ name: "openai-compatible", baseURL: baseURL!, apiKey })(modelId), nativeSearch: null };
  }
}
