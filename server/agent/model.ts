/** The language model for a configuration choice (server/agent/config.ts), with its provider's native search. */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createPerplexity } from "@ai-sdk/perplexity";
import type { LanguageModel, ToolSet } from "ai";
import type { ModelChoice } from "./config";
import { plainFetch as fetch } from "../net/plain-fetch";

/** The model and the grounded-search tools its provider offers natively (none for openai-compatible). */
export function createModel(choice: ModelChoice): { model: LanguageModel; nativeSearch: ToolSet | null } {
  const { provider, modelId, apiKey, baseURL } = choice;
  switch (provider) {
    case "google": {
      const google = createGoogleGenerativeAI({ apiKey, baseURL, fetch });
      return { model: google(modelId), nativeSearch: { google_search: google.tools.googleSearch({}) } };
    }
    case "openai": {
      const openai = createOpenAI({ apiKey, baseURL, fetch });
      return { model: openai(modelId), nativeSearch: { web_search: openai.tools.webSearch({}) } as unknown as ToolSet };
    }
    case "anthropic": {
      const anthropic = createAnthropic({ apiKey, baseURL, fetch });
      return {
        model: anthropic(modelId),
        nativeSearch: { web_search: anthropic.tools.webSearch_20250305({ maxUses: 5 }) },
      };
    }
    case "perplexity": {
      // Sonar models search on every call; their citations come back as sources.
      return { model: createPerplexity({ apiKey, baseURL, fetch })(modelId), nativeSearch: {} };
    }
    case "openai-compatible":
      return {
        model: createOpenAICompatible({ name: "openai-compatible", baseURL: baseURL!, apiKey, fetch })(modelId),
        nativeSearch: null,
      };
  }
}
