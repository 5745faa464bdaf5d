"use client";
import { useEffect, useState } from "react";
import { toast } from "sonner";
import { Confirm, CopyButton, useAction } from "./actions";
import { Time } from "./time";
import { errorMessage, trpc } from "./trpc";

export function UsernameForm() {
  const { busy, run } = useAction();
  const [name, setName] = useState("");
  const [check, setCheck] = useState<{ name: string; available: boolean; reason: string | null } | null>(null);

  useEffect(() => {
    const wanted = name.trim();
    if (wanted.length < 3) return;
    const timer = setTimeout(() => {
      trpc.users.usernameAvailable.query({ username: wanted }).then((r) => setCheck({ name: wanted, ...r }), () => setCheck(null));
    }, 300);
    return () => clearTimeout(timer);
  }, [name]);

  const current = name.trim().length >= 3 && check?.name === name.trim() ? check : null;
  return (
    <form className="stack" noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void run(() => trpc.users.setUsername.mutate({ username: name.trim() }), "Username saved");
      }}>
      <div className="field">
        <label htmlFor="username">Username</label>
        <div className="row">
          <input id="username" value={name} onChange={(e) => setName(e.target.value)} autoComplete="username" aria-describedby="username-status" maxLength={30} />
          <button type="submit" disabled={busy || !current?.available}>Save username</button>
        </div>
        <p id="username-status" className={current && !current.available ? "field-error" : "hint"} aria-live="polite">
          {current ? (current.available ? `@${name.trim().toLowerCase()} is available` : `Not available: ${current.reason ?? "taken"}`) : "3–30 characters: a letter first, then letters, digits, '_' or '-'. It can be set once."}
        </p>
      </div>
    </form>
  );
}

export type KeyRow = { id: string; name: string; key_prefix: string; is_active: boolean; created_at: string; last_used_at: string | null };

export function ApiKeys({ keys }: { keys: KeyRow[] }) {
  const { busy, run } = useAction();
  const [name, setName] = useState("");
  const [created, setCreated] = useState<string | null>(null);
  const active = keys.filter((k) => k.is_active);
  return (
    <div className="stack">
      {created ? (
        <div className="notice" role="status">
          <p>
            <strong>Your new API key.</strong> Copy it now: it is shown only once.
          </p>
          <div className="row">
            <code className="secret" data-testid="new-api-key">{created}</code>
            <CopyButton text={created} />
          </div>
        </div>
      ) : null}
      {active.length ? (
        <table>
          <caption className="sr-only">Your API keys</caption>
          <thead>
            <tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {active.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td><code>{k.key_prefix}…</code></td>
                <td>{new Date(k.created_at).toLocaleDateString()}</td>
                <td>{k.last_used_at ? new Date(k.last_used_at).toLocaleString() : "never"}</td>
                <td>
                  <Confirm label="Revoke" danger confirmLabel="Revoke key" prompt="Clients using this key stop working at once."
                    onConfirm={async () => {
                      if (await run(() => trpc.auth.revokeApiKey.mutate({ id: k.id }), "Key revoked")) setCreated(null);
                    }} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <form className="row" noValidate
          onSubmit={async (e) => {
            e.preventDefault();
            const r = await run(() => trpc.auth.createApiKey.mutate({ name: name.trim() || "default" }));
            if (r) {
              setCreated(r.key);
              setName("");
            }
          }}>
          <label htmlFor="key-name" className="sr-only">Key name</label>
          <input id="key-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="Key name, e.g. laptop" maxLength={100} />
          <button type="submit" disabled={busy}>Create API key</button>
        </form>
      )}
    </div>
  );
}

export function WebhookSecret({ previousExpiresAt }: { previousExpiresAt: string | null }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [expires, setExpires] = useState(previousExpiresAt);
  const load = () => trpc.users.webhookSecret.query().then((r) => setSecret(r.secret), (e) => toast.error(errorMessage(e)));
  return (
    <>
      <div className="row">
        {secret ? (
          <>
            <code className="secret" data-testid="webhook-secret">{secret}</code>
            <CopyButton text={secret} />
          </>
        ) : (
          <button type="button" className="secondary" onClick={load}>Reveal signing secret</button>
        )}
        <Confirm label="Rotate" confirmLabel="Rotate secret"
          prompt="A new secret signs from now on; the old one keeps signing beside it for 24 hours, so your receivers can switch without missing a delivery."
          onConfirm={() =>
            trpc.users.rotateWebhookSecret.mutate({ overlap_hours: 24 }).then(
              (r) => { setSecret(r.secret); setExpires(r.previous_expires_at); toast.success("Secret rotated"); },
              (e) => toast.error(errorMessage(e)),
            )
          } />
      </div>
      {expires ? (
        <p className="muted small" data-testid="previous-secret-expires">
          The previous secret also signs every delivery until <Time iso={expires} />; after that only the new one does.
        </p>
      ) : null}
    </>
  );
}
