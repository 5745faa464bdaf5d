import Link from "next/link";
import { DEFAULT_MODEL, KEY_VARIABLE, NO_MODEL_CONFIGURED } from "@/server/agent/config";
import { serverCaller, viewer } from "@/server/api/server-caller";
import type { TaskView } from "@/server/tasks/schemas";
import { Markdown, Sources } from "../../../components";
import { DeleteWatch, ForkButton, LiveRefresh, RunNow, StateButtons, TestSend, Visibility } from "../../ui/actions";
import { duration, outcomeOf } from "../../ui/format";
import { ownWatch } from "../../ui/load";
import { Time } from "../../ui/time";

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
        <p>
          <strong>Evidence:</strong> {result.evidence}
        </p>
      ) : null}
      <p className="muted">Confidence {Math.round(result.confidence * 100)}%</p>
      {execution.grounding_sources?.length ? <Sources sources={execution.grounding_sources} newTab /> : null}
    </>
  );
}

/** Whether a met finding was sent or held by the watch's bounds, and whether it was retracted later. */
function Trust({ execution }: { execution: Execution }) {
  const gate = execution.result?.gate;
  return (
    <p className="small">
      {gate ? (
        gate.passed ? (
          <span className="badge met">sent</span>
        ) : (
          <span className="badge held" data-testid="held">
            held: {gate.reason}
          </span>
        )
      ) : null}{" "}
      {execution.retracted_by_execution_id ? (
        <span className="badge retracted" data-testid="retracted">
          retracted: a later check found this no longer holds
        </span>
      ) : null}
      {execution.result?.retracted_execution_id ? (
        <span className="badge retracted">this check retracted the earlier finding</span>
      ) : null}
    </p>
  );
}

/** Checks that failed in a row, newest first, up to the latest one that did not fail. */
const failedInARow = (executions: Execution[]) => {
  const settled = executions.filter((e) => e.status === "success" || e.status === "failed");
  const firstSuccess = settled.findIndex((e) => e.status === "success");
  return firstSuccess === -1 ? settled.length : firstSuccess;
};

const interval = (minutes: number) =>
  minutes % 1440 === 0
    ? `${minutes / 1440} day${minutes === 1440 ? "" : "s"}`
    : minutes % 60 === 0
      ? `${minutes / 60} h`
      : `${minutes} min`;

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
  const task = await ownWatch(id);
  const caller = await serverCaller();
  const [executions, findings, history, user] = await Promise.all([
    caller.tasks.executions({ id, limit: 20, offset: 0 }),
    caller.tasks.findings({ id, limit: 10, offset: 0 }),
    caller.tasks.history({ id, limit: 20, offset: 0 }),
    viewer(),
  ]);
  const failing = failedInARow(executions);
  const latest = executions[0] ?? null;
  const running = latest?.status === "pending" || latest?.status === "running";
  const answered = executions.find((e) => e.status === "success");
  const outcome = outcomeOf(latest);
  const email = task.notifications.find((n) => n.type === "email");
  const webhook = task.notifications.find((n) => n.type === "webhook");
  return (
    <main className="wide">
      <p className="muted small">
        <Link href="/dashboard">← Your watches</Link>
      </p>
      <div className="title-row">
        <h1>{task.name}</h1>
        <span className={`badge state-${task.state}`}>{task.state}</span>
        {task.is_public ? <span className="badge">public</span> : null}
      </div>
      <dl className="facts">
        <dt>Searching</dt>
        <dd>{task.search_query}</dd>
        <dt>Tell me when</dt>
        <dd>{task.condition_description}</dd>
        <dt>Last result</dt>
        <dd>
          <span className={`badge outcome-${outcome.replace(" ", "-")}`}>{outcome}</span>
        </dd>
        <dt>Last checked</dt>
        <dd>
          <Time iso={latest?.completed_at ?? latest?.started_at} />
        </dd>
        <dt>Next check</dt>
        <dd>{task.state === "active" ? <Time iso={task.next_run} /> : `— (${task.state})`}</dd>
        <dt>Notify when</dt>
        <dd>
          confidence {Math.round(task.min_confidence * 100)}% or more,{" "}
          {task.min_sources === 1 ? "any source" : `${task.min_sources} independent sites`}
        </dd>
        <dt>Checks</dt>
        <dd>
          at most every {interval(task.min_interval_minutes)}, at least every {interval(task.max_interval_minutes)}
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
      <div className="actions" role="group" aria-label="Watch actions">
        <RunNow id={task.id} />
        <StateButtons id={task.id} state={task.state} />
        <Link className="button secondary" href={`/dashboard/w/${task.id}/edit`}>
          Edit
        </Link>
        <Visibility id={task.id} isPublic={task.is_public} username={user?.username ?? null} />
        <ForkButton id={task.id} />
        <DeleteWatch id={task.id} />
      </div>
      {task.is_public ? (
        <p className="muted small">
          Public page: <Link href={`/w/${task.id}`}>/w/{task.id}</Link> ·{" "}
          <a href={`/api/v1/public/tasks/id/${task.id}/rss`}>RSS feed</a>
        </p>
      ) : null}
      <LiveRefresh active={running} />
      {failing >= 3 ? (
        <div className="notice banner-failing" role="alert" data-testid="failing-banner">
          <p>
            <strong>This watch is failing: its last {failing} checks failed.</strong> It keeps retrying (at most every 3
            hours) and you were emailed once; you will be emailed again when a check works.
          </p>
          <p className="small">
            Latest error:{" "}
            {latest?.status === "failed"
              ? latest.error_message
              : executions.find((e) => e.status === "failed")?.error_message}
          </p>
        </div>
      ) : null}

      <section aria-labelledby="answer-title" className="card">
        <h2 id="answer-title">Latest answer</h2>
        {answered ? (
          <>
            <p className="muted small">
              Checked <Time iso={answered.completed_at} />
            </p>
            <Answer execution={answered} />
          </>
        ) : (
          <p className="muted">
            No answer yet. {running ? "The first check is running." : "Run a check to see what the agent finds."}
          </p>
        )}
        {latest?.status === "failed" ? (
          latest.error_message === NO_MODEL_CONFIGURED ? (
            <NoModelHint />
          ) : (
            <p className="notice" role="alert">
              The last check failed: {latest.error_message}
            </p>
          )
        ) : null}
      </section>

      <section aria-labelledby="notify-title" className="card">
        <h2 id="notify-title">Notifications</h2>
        {email || webhook ? (
          <ul className="channels">
            {email ? (
              <li>
                Email to <strong>{email.address}</strong> <TestSend id={task.id} type="email" />
              </li>
            ) : null}
            {webhook ? (
              <li>
                Webhook {webhook.method} <strong>{webhook.url}</strong> <TestSend id={task.id} type="webhook" />
              </li>
            ) : null}
          </ul>
        ) : (
          <p className="muted">
            No channels: findings are kept here and in the API.{" "}
            <Link href={`/dashboard/w/${task.id}/edit`}>Add email or webhook</Link>.
          </p>
        )}
        <p className="small">
          <Link href={`/dashboard/notifications?task_id=${task.id}`}>Delivery history for this watch</Link>
        </p>
      </section>

      <section aria-labelledby="findings-title">
        <h2 id="findings-title">Findings</h2>
        {findings.length ? (
          findings.map((f) => (
            <article className="card" key={f.id}>
              <h3>
                {f.retracted_by_execution_id ? "Retracted: " : ""}
                {f.notification?.title ?? "Condition met"}
              </h3>
              <p className="muted small">
                <Time iso={f.completed_at} />
              </p>
              <Answer execution={f} />
            </article>
          ))
        ) : (
          <p className="muted">Nothing yet: you will find every new finding here.</p>
        )}
      </section>

      <section aria-labelledby="changes-title" id="history">
        <h2 id="changes-title">Definition history</h2>
        {history.length ? (
          <ul className="changes">
            {history.map((h) => (
              <li key={h.at}>
                <Time iso={h.at} />:{" "}
                {Object.entries(h.changes).map(([field, c]) => (
                  <span key={field} className="small">
                    <code>{field}</code> {JSON.stringify(c.from)} → {JSON.stringify(c.to)};{" "}
                  </span>
                ))}
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">Unchanged since it was created.</p>
        )}
      </section>

      <section aria-labelledby="history-title">
        <h2 id="history-title">Execution history</h2>
        {executions.length ? (
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
              {executions.map((e) => (
                <tr key={e.id}>
                  <td>
                    <Time iso={e.started_at} />
                  </td>
                  <td>
                    <span className={`badge status-${e.status}`}>{e.status}</span>
                  </td>
                  <td>{e.status === "success" ? (e.result?.condition_met ? "met" : "not met") : "—"}</td>
                  <td>{duration(e.started_at, e.completed_at)}</td>
                  <td className="small">{e.error_message ?? e.result?.next_run_reason ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="muted">No checks yet.</p>
        )}
      </section>
    </main>
  );
}
