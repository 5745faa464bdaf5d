/**
 * The agent: one run of one watch. The model researches with grounded search (its provider's native tool, or
 * web_search/fetch_page), answers with a JSON decision, and the service validates it and applies its rules
 * (server/agent/decision.ts). Failures are AgentErrors whose message tells the owner what to do.
 */
import { APICallError, generateText, stepCountIs, type LanguageModel, type ToolSet } from "ai";
import { env } from "../env";
import { ModelDecision, clampNextRun, extractJson, finalizeDecision } from "./decision";
import { chooseModel, createModel, ModelConfigError } from "./model";
import { SYSTEM_PROMPT, userPrompt } from "./prompt";
import { searchProvider, searchTools } from "./search";

export { clampNextRun };
export { withAgentSlot } from "./slots";

export type AgentWatch = { id: string; user_id: string; name: string; search_query: string; condition_description: string };
export type PriorRun = { at: string; condition_met: boolean; answer: string; notified: boolean };
export type AgentInput = { watch: AgentWatch; lastKnownState: Record<string, unknown> | null; recent: PriorRun[]; now: Date };
export type AgentDecision = ReturnType<typeof finalizeDecision>;
export type AgentRun = { decision: AgentDecision; model: string; usage: { input_tokens: number; output_tokens: number }; duration_ms: number };

export class AgentError extends Error {}

const MAX_STEPS = 8;
const MAX_OUTPUT_TOKENS = 4096;

type Resolved = { model: LanguageModel; tools: ToolSet; name: string };
/** Creating a provider's model builds its response schemas, which costs more than the rest of a run: once per configuration. */
let created: { key: string; resolved: Resolved } | undefined;

function resolveModel(override?: LanguageModel): Resolved {
  if (override) return { model: override, tools: {}, name: typeof override === "string" ? override : `${override.provider}:${override.modelId}` };
  let choice;
  try {
    choice = chooseModel(process.env);
  } catch (e) {
    if (e instanceof ModelConfigError) throw new AgentError(e.message);
    throw e;
  }
  const key = JSON.stringify(choice);
  if (created?.key !== key) {
    const { model, nativeSearch } = createModel(choice);
    const useOwnSearch = nativeSearch === null || !!env.SEARCH_PROVIDER;
    if (useOwnSearch && !searchProvider())
      throw new AgentError(`${choice.provider}:${choice.modelId} has no built-in web search: set SEARXNG_URL (or TAVILY_API_KEY / BRAVE_SEARCH_API_KEY)`);
    created = { key, resolved: { model, tools: useOwnSearch ? searchTools : (nativeSearch ?? {}), name: `${choice.provider}:${choice.modelId}` } };
  }
  return created.resolved;
}

function describeFailure(e: unknown, modelName: string, timedOut: boolean): AgentError {
  if (timedOut) return new AgentError(`The agent run timed out after ${Math.round(env.AGENT_TIMEOUT_MS / 1000)} s`);
  if (APICallError.isInstance(e)) {
    const hint = e.statusCode === 401 || e.statusCode === 403 ? " (check the API key)" : e.statusCode === 429 ? " (rate limited or out of quota)" : "";
    return new AgentError(`Model provider error from ${modelName}: HTTP ${e.statusCode ?? "?"} ${e.message}${hint}`);
  }
  return new AgentError(`Model provider error from ${modelName}: ${e instanceof Error ? e.message : String(e)}`);
}

export async function runAgent(input: AgentInput, opts: { model?: LanguageModel; signal?: AbortSignal } = {}): Promise<AgentRun> {
  const started = Date.now();
  const { model, tools, name } = resolveModel(opts.model);
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
    });
    addUsage(research.totalUsage);
    const found = [
      ...research.sources.flatMap((s) => (s.sourceType === "url" ? [{ url: s.url, title: s.title ?? "" }] : [])),
      ...research.steps.flatMap((step) =>
        step.toolResults.flatMap((r) => {
          const output = r.output as { results?: { url: string; title: string }[] } | undefined;
          return output?.results?.map((x) => ({ url: x.url, title: x.title })) ?? [];
        }),
      ),
    ];

    let parsed = ModelDecision.safeParse(safeExtract(research.text));
    if (!parsed.success) {
      // One repair attempt, without tools: the research is done, only the format was wrong.
      const repair = await generateText({
        model,
        system: SYSTEM_PROMPT,
        messages: [
          ...research.response.messages,
          { role: "user", content: `Your answer was not valid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}. Answer again with ONLY the JSON object.` },
        ],
        maxOutputTokens: MAX_OUTPUT_TOKENS,
        abortSignal,
      });
      addUsage(repair.totalUsage);
      parsed = ModelDecision.safeParse(safeExtract(repair.text));
      if (!parsed.success)
        throw new AgentError(`The model returned an invalid decision: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    }

    return {
      decision: finalizeDecision(parsed.data, { now: input.now, lastKnownState: input.lastKnownState, extraSources: found }),
      model: name,
      usage,
      duration_ms: Date.now() - started,
    };
  } catch (e) {
    if (e instanceof AgentError) throw e;
    throw describeFailure(e, name, timeout.aborted);
  }
}

function safeExtract(text: string): unknown {
  try {
    return extractJson(text);
  } catch {
    return undefined;
  }
}
