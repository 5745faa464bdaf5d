/**
 * The agent: one run of one watch. The model researches with grounded search (its provider's native tool, or
 * web_search/fetch_page), answers with a JSON decision, and the service validates it and applies its rules
 * (server/agent/decision.ts). Failures are AgentErrors whose message tells the owner what to do.
 */
import { APICallError, generateText, RetryError, stepCountIs, type LanguageModel, type ToolSet } from "ai";
import { env } from "../env";
import { chooseModel, ModelConfigError, type ModelChoice } from "./config";
import { ModelDecision, clampNextRun, extractJson, finalizeDecision } from "./decision";
import { createModel } from "./model";
import { SYSTEM_PROMPT, userPrompt, type AgentInput } from "./prompt";
import { searchProvider, searchTools } from "./search";
import { reportedSources, resolveGroundingRedirects } from "./sources";
import { metrics } from "../observability/metrics.mjs";
import { stepProgress, type ProgressEntry } from "./progress";
import { forgetOnStop } from "../start-state";

export { clampNextRun };
export { withAgentSlot } from "./slots";

export type { AgentInput, AgentWatch, NotifiedFinding, PriorRun } from "./prompt";
export type AgentDecision = ReturnType<typeof finalizeDecision>;
export type AgentRun = {
  decision: AgentDecision;
  model: string;
  usage: { input_tokens: number; output_tokens: number };
  duration_ms: number;
};

export class AgentError extends Error {
  /** No usable model in this configuration (as opposed to a provider that failed). */
  readonly notConfigured: boolean;
  constructor(message: string, opts: { notConfigured?: boolean } = {}) {
    super(message);
    this.notConfigured = opts.notConfigured ?? false;
  }
}

const MAX_STEPS = 8;
const MAX_OUTPUT_TOKENS = 4096;

/**
 * The AI SDK's spans (each model call with its token counts, each tool call) when tracing is on; what the watch asks
 * and what the model answers stay out of them.
 */
const telemetry = (watchId: string) => ({
  isEnabled: !!process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
  functionId: "watch.agent",
  metadata: { task_id: watchId },
  recordInputs: false,
  recordOutputs: false,
});

/** `choice` is absent for a model given directly (tests). */
type Resolved = { model: LanguageModel; tools: ToolSet; name: string; choice?: ModelChoice };
/** Creating a provider's model builds its response schemas, which costs more than the rest of a run: once per configuration. */
let created: { key: string; resolved: Resolved } | undefined;
forgetOnStop(() => (created = undefined));

/** The configured model, or an AgentError saying what to set; nothing is created. */
function configuredModel(): ModelChoice {
  let choice;
  try {
    choice = chooseModel(env);
  } catch (e) {
    if (e instanceof ModelConfigError) throw new AgentError(e.message, { notConfigured: true });
    throw e;
  }
  if ((choice.provider === "openai-compatible" || env.SEARCH_PROVIDER) && !searchProvider())
    throw new AgentError(
      `${choice.provider}:${choice.modelId} has no built-in web search: set SEARXNG_URL (or TAVILY_API_KEY / BRAVE_SEARCH_API_KEY)`,
      {
        notConfigured: true,
      },
    );
  return choice;
}

/** What keeps every agent run from working in this configuration (said once at start-up), or null. */
export function agentConfigProblem(): string | null {
  try {
    configuredModel();
    return null;
  } catch (e) {
    if (e instanceof AgentError) return e.message;
    throw e;
  }
}

function resolveModel(override?: LanguageModel): Resolved {
  if (override)
    return {
      model: override,
      tools: {},
      name: typeof override === "string" ? override : `${override.provider}:${override.modelId}`,
    };
  const choice = configuredModel();
  const key = JSON.stringify(choice);
  if (created?.key !== key) {
    const { model, nativeSearch } = createModel(choice);
    const tools = nativeSearch === null || env.SEARCH_PROVIDER ? searchTools : nativeSearch;
    created = { key, resolved: { model, tools, name: `${choice.provider}:${choice.modelId}`, choice } };
  }
  return created.resolved;
}

/**
 * An error the owner can act on. The SDK retries overloads and rate limits itself (twice, with backoff) before
 * giving up with a RetryError: the provider's own answer is its last error. Gemini answers a bad key with 400
 * API_KEY_INVALID, the others with 401/403; Anthropic signals overload with 529.
 */
function describeFailure(e: unknown, resolved: Resolved, timedOut: boolean): AgentError {
  if (timedOut) return new AgentError(`The agent run timed out after ${Math.round(env.AGENT_TIMEOUT_MS / 1000)} s`);
  const retried = RetryError.isInstance(e) ? e.errors.length : 1;
  const cause = RetryError.isInstance(e) ? e.lastError : e;
  const prefix = `Model provider error from ${resolved.name}`;
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode;
    const badKey = status === 401 || status === 403 || /API_KEY_INVALID/.test(cause.responseBody ?? "");
    const hint = badKey
      ? ` (check the API key${resolved.choice?.keyVariable ? ` in ${resolved.choice.keyVariable}` : ""})`
      : status === 429
        ? " (rate limited or out of quota; the run is retried later)"
        : status === undefined
          ? " (the provider cannot be reached; the run is retried later)"
          : status >= 500
            ? " (the provider is overloaded or failing; the run is retried later)"
            : "";
    const attempts = retried > 1 ? `, after ${retried} attempts` : "";
    return new AgentError(`${prefix}: ${status ? `HTTP ${status} ` : ""}${cause.message}${hint}${attempts}`);
  }
  return new AgentError(`${prefix}: ${cause instanceof Error ? cause.message : String(cause)}`);
}

/** `onProgress` hears each search and page read as the research goes (once per finished step, never per token). */
export async function runAgent(
  input: AgentInput,
  opts: { model?: LanguageModel; signal?: AbortSignal; onProgress?: (entries: ProgressEntry[]) => void } = {},
): Promise<AgentRun> {
  const started = Date.now();
  const resolved = resolveModel(opts.model);
  const { model, tools, name, choice } = resolved;
  const timeout = AbortSignal.timeout(env.AGENT_TIMEOUT_MS);
  const abortSignal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const usage = { input_tokens: 0, output_tokens: 0 };
  const addUsage = (u: { inputTokens?: number; outputTokens?: number }) => {
    usage.input_tokens += u.inputTokens ?? 0;
    usage.output_tokens += u.outputTokens ?? 0;
  };

  try {
    const research = await generateText({
      model,
      system: SYSTEM_PROMPT,
      prompt: userPrompt(input),
      tools,
      stopWhen: stepCountIs(MAX_STEPS),
      maxOutputTokens: MAX_OUTPUT_TOKENS,
      abortSignal,
      experimental_telemetry: telemetry(input.watch.id),
      onStepFinish: (step) => {
        const entries = opts.onProgress ? stepProgress(step) : [];
        if (entries.length) opts.onProgress!(entries);
      },
    });
    addUsage(research.totalUsage);
    const found = reportedSources(research);

    let parsed = ModelDecision.safeParse(safeExtract(research.text));
    if (!parsed.success) {
      // One repair attempt, without tools: the research is done, only the format was wrong.
      const repair = await generateText({
        model,
        system: SYSTEM_PROMPT,
        messages: [
          ...research.response.messages,
          {
            role: "user",
            content: `Your answer was not valid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}. Answer again with ONLY the JSON object.`,
          },
        ],
        maxOutputTokens: MAX_OUTPUT_TOKENS,
        abortSignal,
        experimental_telemetry: telemetry(input.watch.id),
      });
      addUsage(repair.totalUsage);
      parsed = ModelDecision.safeParse(safeExtract(repair.text));
      if (!parsed.success)
        throw new AgentError(
          `The model returned an invalid decision: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
        );
    }

    // The model's own list first: its titles are the pages' titles.
    const sources = await resolveGroundingRedirects(
      [...parsed.data.sources, ...found],
      choice?.provider === "google" ? choice.baseURL : undefined,
    );
    return {
      decision: finalizeDecision({ ...parsed.data, sources }, { now: input.now, cadence: input.watch }),
      model: name,
      usage,
      duration_ms: Date.now() - started,
    };
  } catch (e) {
    if (e instanceof AgentError) throw e;
    throw describeFailure(e, resolved, timeout.aborted);
  } finally {
    // What the provider counted, a failed run's calls included.
    const provider = choice?.provider ?? name.split(":")[0] ?? "unknown";
    const tokens = metrics().modelTokens;
    if (usage.input_tokens) tokens.inc({ provider, direction: "input" }, usage.input_tokens);
    if (usage.output_tokens) tokens.inc({ provider, direction: "output" }, usage.output_tokens);
  }
}

function safeExtract(text: string): unknown {
  try {
    return extractJson(text);
  } catch {
    return undefined;
  }
}
