/**
 * Which language model runs the agent, from AGENT_MODEL or the first provider key that is set.
 * Pure and free of the providers' SDKs, so start-up and pages can check the configuration cheaply.
 */

export const PROVIDERS = ["google", "openai", "anthropic", "perplexity", "openai-compatible"] as const;
export type Provider = (typeof PROVIDERS)[number];

export const KEY_VARIABLE = {
  google: "GOOGLE_GENERATIVE_AI_API_KEY",
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  perplexity: "PERPLEXITY_API_KEY",
} as const satisfies Record<Exclude<Provider, "openai-compatible">, string>;

export const DEFAULT_MODEL: Record<Exclude<Provider, "openai-compatible">, string> = {
  google: "gemini-2.5-flash",
  openai: "gpt-4.1-mini",
  anthropic: "claude-sonnet-4-5",
  perplexity: "sonar-pro",
};

/** The variables that choose the model (server/env.ts validates them; tests pass plain objects). */
export type ModelEnv = Partial<
  Record<"AGENT_MODEL" | "AGENT_BASE_URL" | "AGENT_API_KEY" | (typeof KEY_VARIABLE)[keyof typeof KEY_VARIABLE], string>
>;
/** `keyVariable`: where the API key came from, named in errors about it. */
export type ModelChoice = {
  provider: Provider;
  modelId: string;
  apiKey?: string;
  baseURL?: string;
  keyVariable?: string;
};

export class ModelConfigError extends Error {}

export const NO_MODEL_CONFIGURED =
  "No model configured: set GOOGLE_GENERATIVE_AI_API_KEY, OPENAI_API_KEY, ANTHROPIC_API_KEY or PERPLEXITY_API_KEY, " +
  "or AGENT_MODEL=openai-compatible:<model> with AGENT_BASE_URL.";

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
      if (!baseURL)
        throw new ModelConfigError(
          "AGENT_MODEL=openai-compatible needs AGENT_BASE_URL (e.g. http://localhost:11434/v1)",
        );
      return { provider, modelId, baseURL, apiKey: e.AGENT_API_KEY || undefined, keyVariable: "AGENT_API_KEY" };
    }
    const keyVariable = e.AGENT_API_KEY ? "AGENT_API_KEY" : KEY_VARIABLE[provider];
    const apiKey = e[keyVariable];
    if (!apiKey)
      throw new ModelConfigError(`AGENT_MODEL=${e.AGENT_MODEL} needs ${KEY_VARIABLE[provider]} (or AGENT_API_KEY)`);
    return { provider, modelId: modelId || DEFAULT_MODEL[provider], apiKey, baseURL, keyVariable };
  }
  for (const provider of Object.keys(KEY_VARIABLE) as (keyof typeof KEY_VARIABLE)[]) {
    const keyVariable = KEY_VARIABLE[provider];
    const apiKey = e[keyVariable];
    if (apiKey) return { provider, modelId: DEFAULT_MODEL[provider], apiKey, baseURL, keyVariable };
  }
  throw new ModelConfigError(NO_MODEL_CONFIGURED);
}
