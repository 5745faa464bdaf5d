import Link from "next/link";
import { DEFAULT_MODEL, KEY_VARIABLE, NO_MODEL_CONFIGURED } from "@/server/agent/config";
import { serverCaller, viewer } from "@/server/api/server-caller";
import type { DeliveryView, TaskView } from "@/server/tasks/schemas";
import { EVENT_LABELS } from "@/server/notify/events";
import { plural } from "@/server/render/dates";
import { Markdown, Sources } from "../../../ui/markdown";
import { FindingsSection } from "../../../ui/finding-card";
import { ExecutionPill, OutcomePill, Pill, StatePill } from "../../../ui/pill";
import { Time } from "../../../ui/time";
import { latestAnswerOf, VerdictCard } from "../../../ui/verdict-card";
import {
  AnsweredPrompt,
  CopyButton,
  LiveRefresh,
  MoreActions,
  PauseResume,
  Redeliver,
  RunNow,
  SendAnyway,
  TestSend,
} from "../../ui/actions";
import { ChannelSummary } from "../../ui/channel-summary";
import { channelOf } from "@/channels";
import { isOpen, outcomeOf } from "@/lib/outcome";
import { duration, interval, sureness } from "../../ui/format";
import { DefinitionHistory } from "../../ui/history";
import { env } from "@/server/env";
import { ownWatch } from "../../ui/load";

type Execution = NonNullable<TaskView["last_execution"]>;

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  return { title: (await ownWatch((await params).id)).name };
}

function Answer({ execution }: { execution: Execution }) {
  const result = execution.result;
  if (!result) return null;
  return (
    <>
      <Trust execution={execution} />
      {result.answer ? <Markdown className="answer" text={result.answer} /> : null}
      {result.evidence ? (
        <p className="small">
          <strong>Evidence:</strong> {result.evidence}
        </p>
      ) : null}
      <Sources sources={execution.grounding_sources ?? []} newTab />
    </>
  );
}

/**
 * The answer's verdict (met or not; how sure, for a met one), whether a met finding was sent or held by the watch's
 * bounds, and whether it was retracted later.
 */
function Trust({ execution }: { execution: Execution }) {
  const result = execution.result;
  const gate = result?.gate;
  return (
    <div className="row">
      {result ? <OutcomePill outcome={result.condition_met ? "met" : "not met"} /> : null}
      {result?.condition_met ? <span className="muted small">{sureness(result.confidence)}</span> : null}
      {gate ? (
        gate.passed ? (
          <Pill tone="ok">sent</Pill>
        ) : execution.notification ? (
          <Pill tone="ok">sent anyway: {gate.reason}</Pill>
        ) : (
          <Pill tone="warn" testId="held">
            held: {gate.reason}
          </Pill>
        )
      ) : null}
      {execution.retracted_by_execution_id ? (
        <Pill tone="warn" testId="retracted">
          retracted: a later check found this no longer holds
        </Pill>
      ) : null}
      {result?.retracted_execution_id ? <Pill tone="warn">this check retracted the earlier finding</Pill> : null}
    </div>
  );
}

const STEP_WORDS = { search: "Searched", read: "Read", decide: "Decided", notify: "Notified" } as const;

/** What a check under way has done so far: each search and page as it happens (the page refreshes every 2 s). */
function LiveSteps({ execution }: { execution: Execution }) {
  const steps = execution.progress ?? [];
  return (
    <section className="card section live-steps" aria-labelledby="live-title" data-testid="live-steps">
      <div className="spread section-title">
        <h2 id="live-title">Checking now</h2>
        <span className="muted small">
          started <Time iso={execution.started_at} />
        </span>
      </div>
      {steps.length ? (
        <ol className="progress-steps" aria-live="polite">
          {steps.map((p, i) => (
            <li key={i} data-step={p.step}>
              <span className="muted small">{STEP_WORDS[p.step]}</span> <span className="step-detail">{p.detail}</span>
            </li>
          ))}
        </ol>
      ) : (
        <p className="muted small">Starting the research…</p>
      )}
    </section>
  );
}

/** "Next check in 3 hours." */
const NextCheck = ({ iso }: { iso: string | null }) =>
  iso ? (
    <>
      Next check <Time iso={iso} />.
    </>
  ) : null;

/** "failed 3× (HTTP 500)", "retrying, next try 14:05 CET". */
function DeliveryState({ d }: { d: DeliveryView }) {
  if (d.state === "retrying")
    return (
      <span className="delivery-retrying">
        {d.label} retrying
        {d.next_attempt_at ? (
          <>
            , next try <Time iso={d.next_attempt_at} format="clock" />
          </>
        ) : null}
        {d.error ? ` (${d.error})` : ""}
      </span>
    );
  return (
    <span className="delivery-failed">
      {d.label} failed{d.attempts > 1 ? ` ${d.attempts}×` : ""}
      {d.error ? ` (${d.error})` : ""}
    </span>
  );
}

/**
 * Under the verdict: what became of the latest notice on each channel, from the send records ("Sent to Email, Slack ✓
 * · Webhook failed 3× (HTTP 500) — Redeliver"). Only the channels that accepted it are "sent to".
 */
function DeliveryLine({ task }: { task: TaskView }) {
  const delivery = task.delivery ?? [];
  const following = task.subscriber_count ? ` · ${plural(task.subscriber_count, "follower")}` : "";
  const history = (
    <Link href={`/dashboard/notifications?task_id=${task.id}`} className="quiet-link">
      Delivery history
    </Link>
  );
  if (!delivery.length)
    return (
      <p className="muted small" data-testid="verdict-delivery">
        {task.verdict.state === "first_check"
          ? "Nothing sent yet: the first check is still running."
          : task.notifications.length
            ? "Nothing sent yet: a notice goes out when the agent finds something new."
            : "Kept here: this watch has no channel."}
        {following}
      </p>
    );
  const event = delivery[0]!.event;
  const sent = delivery.filter((d) => d.state === "delivered").map((d) => d.label);
  const other = delivery.filter((d) => d.state !== "delivered");
  return (
    <p className="small delivery-line" data-testid="verdict-delivery">
      {event === "task.condition_met" ? null : (
        <span className="muted">{EVENT_LABELS[event as keyof typeof EVENT_LABELS] ?? event} notice: </span>
      )}
      {sent.length ? (
        <span className="delivered">
          Sent to {sent.join(", ")} <span aria-label="delivered">✓</span>
        </span>
      ) : null}
      {other.map((d) => (
        <span key={d.channel}>
          {sent.length || d !== other[0] ? " · " : ""}
          <DeliveryState d={d} />
          {d.state === "failed" ? (
            <>
              {" — "}
              <Redeliver id={d.send_id} />
            </>
          ) : null}
        </span>
      ))}
      <span className="muted">{following}</span> · {history}
    </p>
  );
}

const PROVIDER_NAMES = {
  google: "Gemini with Google Search",
  openai: "OpenAI with web search",
  anthropic: "Claude with web search",
  perplexity: "Perplexity Sonar",
};

/** The fix for checks that fail because the server has no model: what to set, where. */
function NoModelHint() {
  return (
    <div className="notice" role="alert">
      <p>
        <strong>Checks cannot run yet: this server has no AI model configured.</strong>
      </p>
      <p>To fix it, set one of these in the server&apos;s environment and restart it:</p>
      <ul>
        {(Object.keys(KEY_VARIABLE) as (keyof typeof KEY_VARIABLE)[]).map((p) => (
          <li key={p}>
            <code>{KEY_VARIABLE[p]}</code>: {PROVIDER_NAMES[p]} (<code>{DEFAULT_MODEL[p]}</code>)
          </li>
        ))}
        <li>
          or a local model: <code>AGENT_MODEL=openai-compatible:&lt;model&gt;</code> with <code>AGENT_BASE_URL</code>{" "}
          and <code>SEARXNG_URL</code>
        </li>
      </ul>
      <p className="small">This watch keeps retrying by itself and picks the model up at its next check.</p>
    </div>
  );
}

export default async function WatchPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const task = await ownWatch(id, { markSeen: true });
  const caller = await serverCaller();
  const [executions, findings, history, user] = await Promise.all([
    caller.tasks.executions({ id, limit: 20, offset: 0 }),
    caller.tasks.findings({ id, limit: 20, offset: 0 }),
    caller.tasks.history({ id, limit: 20, offset: 0 }),
    viewer(),
  ]);
  const latest = executions[0] ?? null;
  const running = isOpen(latest);
  const answered = executions.find((e) => e.status === "success");
  const v = task.verdict;
  // What the held verdict is about: the held finding found most recently.
  const held = findings
    .filter((f) => f.status === "held")
    .sort((a, b) => b.last_confirmed_at.localeCompare(a.last_confirmed_at))[0];
  const edit = `/dashboard/w/${task.id}/edit`;
  const runNow = (label?: string, secondary?: boolean) => (
    <RunNow id={task.id} runningSince={running ? latest!.started_at : null} label={label} secondary={secondary} />
  );
  // The one thing to do first: Resume a paused watch, Reactivate a completed one, else Run now.
  // A watch that can't check offers Retry now in its verdict: Run now steps back here.
  const primary =
    task.state === "active" ? (
      runNow(undefined, v.state === "cant_check")
    ) : (
      <PauseResume id={task.id} state={task.state} primary />
    );
  return (
    <main className="wide">
      <Link className="breadcrumb" href="/dashboard">
        ← Your watches
      </Link>
      <div className="page-header">
        <div>
          <h1>{task.name}</h1>
          <div className="meta plain row">
            <StatePill state={task.state} />
            {task.is_public ? <Pill tone="accent">public</Pill> : null}
          </div>
        </div>
        <div className="actions" role="group" aria-label="Watch actions">
          {primary}
          {task.state === "paused" ? runNow(undefined, true) : null}
          <Link className="button secondary" href={edit}>
            Edit
          </Link>
          {task.state === "active" ? <PauseResume id={task.id} state={task.state} /> : null}
          <MoreActions
            id={task.id}
            state={task.state}
            isPublic={task.is_public}
            username={user?.username ?? null}
            running={running}
          />
        </div>
      </div>
      {task.is_public ? (
        <p className="muted small row public-link" data-testid="public-link">
          <span>
            Public page: <Link href={`/w/${task.id}`}>{task.name}</Link>{" "}
            <span className="path">
              {new URL(env.APP_URL).host}/w/{task.id.slice(0, 8)}…
            </span>
          </span>
          <CopyButton text={`${env.APP_URL}/w/${task.id}`} label="Copy link" />
          <a href={`/api/v1/public/tasks/id/${task.id}/rss`}>RSS feed</a>
        </p>
      ) : null}
      <LiveRefresh active={running} />

      <VerdictCard
        verdict={v}
        resolution={task.resolution}
        owner
        confidence={answered?.result?.condition_met ? answered.result.confidence : null}
        latest={answered ? latestAnswerOf({ last_execution: answered }) : null}
        next={running ? "A check is running now." : task.state === "active" ? <NextCheck iso={task.next_run} /> : null}
        actions={
          v.state === "cant_check" ? (
            <>
              {v.failure === "yours" ? (
                <Link className="button" href={edit}>
                  Change the watch
                </Link>
              ) : (
                runNow("Retry now")
              )}
              <PauseResume id={task.id} state={task.state} />
            </>
          ) : v.state === "held" ? (
            <>
              {held ? (
                <SendAnyway
                  id={task.id}
                  findingKey={held.key}
                  title={held.title}
                  channels={task.notifications.map((n) => {
                    const spec = channelOf(n.type);
                    return `${spec?.label ?? n.type} (${spec?.summary(n) ?? ""})`;
                  })}
                  isPublic={task.is_public}
                />
              ) : null}
              <Link className="button secondary" href={edit}>
                Change bounds
              </Link>
            </>
          ) : v.state === "met" && task.state === "active" && !task.answered ? (
            <AnsweredPrompt id={task.id} />
          ) : null
        }
      >
        <DeliveryLine task={task} />
      </VerdictCard>
      {v.state === "cant_check" && latest?.error_message === NO_MODEL_CONFIGURED ? <NoModelHint /> : null}

      {running && latest ? <LiveSteps execution={latest} /> : null}
      {latest?.status === "failed" && v.state !== "cant_check" ? (
        <p className="notice section" data-tone="warn" role="status">
          The last check failed ({latest.error_message}); the next check tries again.
        </p>
      ) : null}

      <FindingsSection
        taskId={task.id}
        findings={findings}
        met={task.resolution.status !== "watching"}
        empty="Nothing yet: every new finding appears here once, with each check that confirms it."
      />

      {answered ? (
        <details className="disclosure section">
          <summary>
            Latest check in full <span className="muted">· evidence and every source</span>
          </summary>
          <div className="disclosure-body">
            <Answer execution={answered} />
          </div>
        </details>
      ) : null}

      <details className="disclosure section" data-testid="settings">
        <summary>
          Settings and bounds <span className="muted">· what it watches, when to notify, channels</span>
        </summary>
        <div className="disclosure-body">
          <div className="split">
            <section aria-labelledby="about-title" className="card">
              <h2 id="about-title">What it watches</h2>
              <dl className="facts">
                <dt>Searching</dt>
                <dd>{task.search_query}</dd>
                <dt>Tell me when</dt>
                <dd>{task.condition_description}</dd>
                <dt>Next check</dt>
                <dd>
                  {running ? (
                    "after the check under way"
                  ) : task.state === "active" ? (
                    <Time iso={task.next_run} />
                  ) : (
                    `— (${task.state})`
                  )}
                </dd>
                <dt>Notify when</dt>
                <dd>
                  {task.min_confidence ? `${Math.round(task.min_confidence * 100)}% sure or more` : "any confidence"},{" "}
                  {task.min_sources === 1 ? "any source" : `${task.min_sources} independent sites`}
                </dd>
                <dt>Checks</dt>
                <dd>
                  at most every {interval(task.min_interval_minutes)}, at least every{" "}
                  {interval(task.max_interval_minutes)}
                </dd>
                {task.forked_from_task_id ? (
                  <>
                    <dt>Forked from</dt>
                    <dd>
                      <Link href={`/w/${task.forked_from_task_id}`}>a public watch</Link>
                    </dd>
                  </>
                ) : null}
              </dl>
            </section>

            <section aria-labelledby="notify-title" className="card">
              <h2 id="notify-title">Notifications</h2>
              {task.notifications.length ? (
                <ul className="channels">
                  {task.notifications.map((n) => (
                    <li key={n.type}>
                      <ChannelSummary channel={n} />
                      <span className="row">
                        <Link className="small" href={`/dashboard/notifications?task_id=${task.id}&type=${n.type}`}>
                          History
                        </Link>
                        <TestSend id={task.id} type={n.type} />
                      </span>
                    </li>
                  ))}
                </ul>
              ) : (
                <p className="notice" data-tone="warn">
                  Nobody is notified: findings are kept here and in the API.{" "}
                  <Link href={`/dashboard/w/${task.id}/edit`}>Add a channel</Link>.
                </p>
              )}
              <p className="small">
                <Link href={`/dashboard/notifications?task_id=${task.id}`}>Delivery history for this watch</Link>
              </p>
            </section>
          </div>
        </div>
      </details>

      <section aria-labelledby="changes-title" id="history" className="section">
        <h2 id="changes-title">Definition history</h2>
        <DefinitionHistory entries={history} />
      </section>

      <section aria-labelledby="history-title" className="section">
        <h2 id="history-title">Execution history</h2>
        {executions.length ? (
          <div className="table-wrap cards">
            <table>
              <caption className="sr-only">Recent executions, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Status</th>
                  <th scope="col">Result</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {executions.map((e, i) => (
                  <tr key={e.id}>
                    <td data-label="Started" className="nowrap">
                      <Time iso={e.started_at} />
                    </td>
                    <td data-label="Status">
                      <ExecutionPill status={e.status} />
                    </td>
                    <td data-label="Result">{e.status === "success" ? outcomeOf(e) : "—"}</td>
                    <td data-label="Duration" className="num">
                      {duration(e.started_at, e.completed_at)}
                    </td>
                    <td data-label="Details" className="wide-cell">
                      {/* A failure repeated run after run is said once, at the newest of its runs. */}
                      {e.error_message && e.error_message === executions[i - 1]?.error_message ? (
                        <span className="muted">the same error</span>
                      ) : (
                        (e.error_message ?? e.result?.next_run_reason ?? "")
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p className="muted">No checks yet.</p>
        )}
      </section>
    </main>
  );
}
