import { serverCaller, viewer } from "@/server/api/server-caller";
import { settingsView } from "@/server/users/settings";
import { canCreateApiKeys } from "@/server/auth/api-key-service";
import Link from "next/link";
import { formatDate } from "@/server/render/dates";
import { ApiKeys, EmailSettings, UsernameForm, WebhookSecret } from "../ui/settings";

export const metadata = { title: "Settings" };

export default async function Settings() {
  const user = await viewer();
  if (!user) return null;
  const canUseKeys = canCreateApiKeys(user);
  const caller = await serverCaller();
  const [keys, usage, top, secret] = await Promise.all([
    canUseKeys ? caller.auth.listApiKeys() : [],
    caller.usage.get(),
    caller.usage.byTask({ limit: 5 }),
    caller.users.webhookSecret(),
  ]);
  const percent = Math.min(100, Math.round((usage.runs / usage.runs_limit) * 100));
  return (
    <main>
      <div className="page-header">
        <div>
          <h1>Settings</h1>
        </div>
      </div>
      <section className="card" aria-labelledby="account-title">
        <h2 id="account-title">Account</h2>
        <dl className="facts">
          <dt>Email</dt>
          <dd>{user.email}</dd>
          <dt>Role</dt>
          <dd>{user.role ?? "user"}</dd>
          <dt>Username</dt>
          <dd>{user.username ? `@${user.username}` : "not set"}</dd>
        </dl>
      </section>
      <section className="card" aria-labelledby="email-title">
        <h2 id="email-title">Email</h2>
        <EmailSettings settings={settingsView(user)} />
      </section>
      <section className="card" aria-labelledby="usage-title" data-testid="usage">
        <h2 id="usage-title">Usage this month</h2>
        <p className="muted small">
          {formatDate(usage.period_start)} to {formatDate(new Date(Date.parse(usage.period_end) - 1))} (UTC). Past the
          monthly runs, checks pause until the next month and you get one email about it.
        </p>
        <dl className="facts">
          <dt>Checks</dt>
          <dd>
            {usage.runs.toLocaleString("en")} of {usage.runs_limit.toLocaleString("en")}{" "}
            <progress max={100} value={percent} aria-label={`${percent}% of the monthly checks used`} />
          </dd>
          <dt>Model tokens</dt>
          <dd>
            {usage.input_tokens.toLocaleString("en")} in, {usage.output_tokens.toLocaleString("en")} out
          </dd>
          <dt>Active watches</dt>
          <dd>
            {usage.active_tasks} of {usage.active_tasks_limit}
          </dd>
        </dl>
        {top.length ? (
          <div className="table-wrap cards section">
            <table>
              <caption className="sr-only">Watches that ran most this month</caption>
              <thead>
                <tr>
                  <th scope="col">Watch</th>
                  <th scope="col">Checks</th>
                  <th scope="col">Tokens</th>
                </tr>
              </thead>
              <tbody>
                {top.map((t) => (
                  <tr key={t.task_id}>
                    <td className="primary-cell">
                      <Link href={`/dashboard/w/${t.task_id}`}>{t.name}</Link>
                    </td>
                    <td data-label="Checks" className="num">
                      {t.runs.toLocaleString("en")}
                    </td>
                    <td data-label="Tokens" className="num">
                      {(t.input_tokens + t.output_tokens).toLocaleString("en")}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p className="muted">No checks yet this month.</p>
        )}
      </section>
      {user.username ? null : (
        <section className="card" aria-labelledby="username-title">
          <h2 id="username-title">Choose a username</h2>
          <p className="muted">
            Public watches and your profile page (/u/username) show it instead of your name or email.
          </p>
          <UsernameForm />
        </section>
      )}
      <section className="card" aria-labelledby="developers-title" id="developers">
        <h2 id="developers-title">Developers</h2>
        <h3 id="keys-title">API key</h3>
        {canUseKeys ? (
          <>
            <p className="muted">
              Script Watch with the REST API (<a href="/docs">docs</a>), the SDK or <code>watchctl</code>: send{" "}
              <code>Authorization: Bearer &lt;key&gt;</code>. One active key at a time; revoking it takes effect at
              once.
            </p>
            <ApiKeys keys={keys} />
          </>
        ) : (
          <p>
            API keys are for developer and admin accounts. Everything else works from this dashboard; ask an
            administrator for the developer role if you want to script Watch.
          </p>
        )}
        <h3 id="secret-title" className="section">
          Webhook signing secret
        </h3>
        <p className="muted">
          Every webhook is signed with the <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> scheme.
          Verify the <code>webhook-signature</code> header with this secret before trusting a delivery.
        </p>
        <WebhookSecret previousExpiresAt={secret.previous_expires_at} />
      </section>
    </main>
  );
}
