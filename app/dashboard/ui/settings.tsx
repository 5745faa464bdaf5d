"use client";
import { useEffect, useState, useSyncExternalStore } from "react";
import { toast } from "sonner";
import { ConfirmDialog } from "../../ui/confirm-dialog";
import { Time } from "../../ui/time";
import { CopyButton, useAction } from "./actions";
import { errorMessage, trpc } from "./trpc";

export function UsernameForm() {
  const { busy, run } = useAction();
  const [name, setName] = useState("");
  const [check, setCheck] = useState<{ name: string; available: boolean; reason: string | null } | null>(null);

  useEffect(() => {
    const wanted = name.trim();
    if (wanted.length < 3) return;
    const timer = setTimeout(() => {
      trpc.users.usernameAvailable.query({ username: wanted }).then(
        (r) => setCheck({ name: wanted, ...r }),
        () => setCheck(null),
      );
    }, 300);
    return () => clearTimeout(timer);
  }, [name]);

  const current = name.trim().length >= 3 && check?.name === name.trim() ? check : null;
  return (
    <form
      className="stack"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void run(() => trpc.users.setUsername.mutate({ username: name.trim() }), "Username saved");
      }}
    >
      <div className="field">
        <label htmlFor="username">Username</label>
        <div className="row">
          <input
            id="username"
            value={name}
            onChange={(e) => setName(e.target.value)}
            autoComplete="username"
            aria-describedby="username-status"
            maxLength={30}
          />
          <button type="submit" disabled={busy || !current?.available}>
            Save username
          </button>
        </div>
        <p id="username-status" className={current && !current.available ? "field-error" : "hint"} aria-live="polite">
          {current
            ? current.available
              ? `@${name.trim().toLowerCase()} is available`
              : `Not available: ${current.reason ?? "taken"}`
            : "3–30 characters: a letter first, then letters, digits, '_' or '-'. It can be set once."}
        </p>
      </div>
    </form>
  );
}

export type KeyRow = {
  id: string;
  name: string;
  key_prefix: string;
  is_active: boolean;
  created_at: string;
  last_used_at: string | null;
};

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
            <code className="secret" data-testid="new-api-key">
              {created}
            </code>
            <CopyButton text={created} />
          </div>
        </div>
      ) : null}
      {active.length ? (
        <div className="table-wrap cards">
          <table>
            <caption className="sr-only">Your API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {active.map((k) => (
                <tr key={k.id}>
                  <td className="primary-cell">{k.name}</td>
                  <td data-label="Key">
                    <code>{k.key_prefix}…</code>
                  </td>
                  <td data-label="Created">
                    <Time iso={k.created_at} format="date" />
                  </td>
                  <td data-label="Last used">
                    <Time iso={k.last_used_at} empty="never" />
                  </td>
                  <td className="wide-cell">
                    <ConfirmDialog
                      label="Revoke"
                      danger
                      title="Revoke this key?"
                      confirmLabel="Revoke key"
                      description="Clients using this key stop working at once."
                      onConfirm={async () => {
                        if (await run(() => trpc.auth.revokeApiKey.mutate({ id: k.id }), "Key revoked"))
                          setCreated(null);
                      }}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <form
          className="inline-form"
          noValidate
          onSubmit={async (e) => {
            e.preventDefault();
            const r = await run(() => trpc.auth.createApiKey.mutate({ name: name.trim() || "default" }));
            if (r) {
              setCreated(r.key);
              setName("");
            }
          }}
        >
          <div className="field">
            <label htmlFor="key-name">Key name</label>
            <input
              id="key-name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="e.g. laptop"
              maxLength={100}
            />
          </div>
          <button type="submit" disabled={busy}>
            Create API key
          </button>
        </form>
      )}
    </div>
  );
}

export function WebhookSecret({ previousExpiresAt }: { previousExpiresAt: string | null }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [expires, setExpires] = useState(previousExpiresAt);
  const load = () =>
    trpc.users.webhookSecret.query().then(
      (r) => setSecret(r.secret),
      (e) => toast.error(errorMessage(e)),
    );
  return (
    <>
      <div className="row">
        {secret ? (
          <>
            <code className="secret" data-testid="webhook-secret">
              {secret}
            </code>
            <CopyButton text={secret} />
          </>
        ) : (
          <button type="button" className="secondary" onClick={load}>
            Reveal signing secret
          </button>
        )}
        <ConfirmDialog
          label="Rotate"
          title="Rotate the signing secret?"
          confirmLabel="Rotate secret"
          description="A new secret signs from now on; the old one keeps signing beside it for 24 hours, so your receivers can switch without missing a delivery."
          onConfirm={() =>
            trpc.users.rotateWebhookSecret.mutate({ overlap_hours: 24 }).then(
              (r) => {
                setSecret(r.secret);
                setExpires(r.previous_expires_at);
                toast.success("Secret rotated");
              },
              (e) => toast.error(errorMessage(e)),
            )
          }
        />
      </div>
      {expires ? (
        <p className="muted small" data-testid="previous-secret-expires">
          The previous secret also signs every delivery until <Time iso={expires} />; after that only the new one does.
        </p>
      ) : null}
    </>
  );
}

export type EmailSettingsValue = {
  timezone: string;
  quiet_hours: { start: string; end: string } | null;
  email_digest: "off" | "daily";
};

const noSubscription = () => () => {};
let zoneList: string[] | undefined;
const browserZones = () => (zoneList ??= ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")]);

/** Time zone (also the one dates are shown in), quiet hours and the daily digest. */
export function EmailSettings({ settings }: { settings: EmailSettingsValue }) {
  const { busy, run } = useAction();
  const [timezone, setTimezone] = useState(settings.timezone);
  const [quiet, setQuiet] = useState(settings.quiet_hours !== null);
  const [start, setStart] = useState(settings.quiet_hours?.start ?? "22:00");
  const [end, setEnd] = useState(settings.quiet_hours?.end ?? "07:00");
  const [digest, setDigest] = useState(settings.email_digest);
  // The zone list and the browser's own zone exist only in the browser (the server renders the saved zone alone).
  const zones = useSyncExternalStore(noSubscription, browserZones, () => null) ?? [settings.timezone];
  const browserZone = useSyncExternalStore(
    noSubscription,
    () => Intl.DateTimeFormat().resolvedOptions().timeZone,
    () => null,
  );
  return (
    <form
      className="stack"
      data-testid="email-settings"
      onSubmit={(e) => {
        e.preventDefault();
        void run(
          () =>
            trpc.users.settings.mutate({ timezone, quiet_hours: quiet ? { start, end } : null, email_digest: digest }),
          "Settings saved",
        );
      }}
    >
      <div className="field">
        <label htmlFor="timezone">Time zone</label>
        <div className="row">
          <select id="timezone" value={timezone} onChange={(e) => setTimezone(e.target.value)}>
            {(zones.includes(timezone) ? zones : [timezone, ...zones]).map((z) => (
              <option key={z} value={z}>
                {z}
              </option>
            ))}
          </select>
          {browserZone && browserZone !== timezone ? (
            <button type="button" className="secondary" onClick={() => setTimezone(browserZone)}>
              Use {browserZone}
            </button>
          ) : null}
        </div>
        <p className="hint">For quiet hours, the digest, and every date these pages show.</p>
      </div>
      <fieldset className="plain">
        <legend>Quiet hours</legend>
        <label className="check">
          <input type="checkbox" checked={quiet} onChange={(e) => setQuiet(e.target.checked)} /> Hold email during these
          hours
        </label>
        <div className="row time-range">
          <label htmlFor="quiet-start">From</label>
          <input
            id="quiet-start"
            type="time"
            value={start}
            disabled={!quiet}
            onChange={(e) => setStart(e.target.value)}
            required={quiet}
          />
          <label htmlFor="quiet-end">to</label>
          <input
            id="quiet-end"
            type="time"
            value={end}
            disabled={!quiet}
            onChange={(e) => setEnd(e.target.value)}
            required={quiet}
          />
        </div>
        <p className="hint">Email that falls in them is sent when they end. Webhooks never wait.</p>
      </fieldset>
      <div className="field">
        <label htmlFor="digest">Findings by email</label>
        <select id="digest" value={digest} onChange={(e) => setDigest(e.target.value as "off" | "daily")}>
          <option value="off">One email per finding</option>
          <option value="daily">A daily digest at 08:00</option>
        </select>
        <p className="hint">
          The digest gathers every finding and retraction since the last one, of your watches and the ones you follow.
        </p>
      </div>
      <div>
        <button type="submit" disabled={busy}>
          Save email settings
        </button>
      </div>
    </form>
  );
}
