import { serverCaller, viewer } from "@/server/api/server-caller";
import { canCreateApiKeys } from "@/server/auth/api-key-service";
import { ApiKeys, UsernameForm } from "../ui/settings";

export const metadata = { title: "Settings" };

export default async function Settings() {
  const user = await viewer();
  if (!user) return null;
  const canUseKeys = canCreateApiKeys(user);
  const keys = canUseKeys ? await (await serverCaller()).auth.listApiKeys() : [];
  return (
    <main>
      <h1>Settings</h1>
      <section className="card" aria-labelledby="account-title">
        <h2 id="account-title">Account</h2>
        <dl className="facts">
          <dt>Email</dt><dd>{user.email}</dd>
          <dt>Role</dt><dd>{user.role ?? "user"}</dd>
          <dt>Username</dt><dd>{user.username ? `@${user.username}` : "not set"}</dd>
        </dl>
      </section>
      {user.username ? null : (
        <section className="card" aria-labelledby="username-title">
          <h2 id="username-title">Choose a username</h2>
          <p className="muted">Public watches and your profile page (/u/username) show it instead of your name or email.</p>
          <UsernameForm />
        </section>
      )}
      <section className="card" aria-labelledby="keys-title">
        <h2 id="keys-title">API key</h2>
        {canUseKeys ? (
          <>
            <p className="muted">
              Script Watch with the REST API (<a href="/docs">docs</a>), the SDK or <code>watchctl</code>: send{" "}
              <code>Authorization: Bearer &lt;key&gt;</code>. One active key at a time; revoking it takes effect at once.
            </p>
            <ApiKeys keys={keys} />
          </>
        ) : (
          <p>
            API keys are for developer and admin accounts. Everything else works from this dashboard; ask an administrator for
            the developer role if you want to script Watch.
          </p>
        )}
      </section>
    </main>
  );
}
