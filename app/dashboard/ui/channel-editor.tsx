"use client";
/**
 * The chat and push channels of a watch or a follow (email and webhook have fields of their own in the forms): each
 * configured channel with where it goes (secrets as the service shows them: redacted), a test button once saved, and
 * remove; "Add a channel" takes the channel's own fields or a pasted Apprise URL (`slack://…`, `tgram://…`) or the
 * service's URL, parsed by the same parser as `watchctl --notify`. Every type, its fields and its help come from the
 * listed channels (channels/list.ts): a new channel appears here without code of its own.
 */
import { useState } from "react";
import { APPRISE_SCHEMES, AppriseError, parseApprise, channelOf, type ChannelConfig } from "@/channels";
import type { ChannelType as NotificationType } from "@/channels";
import { TestSend } from "./actions";
import { ChannelSummary } from "./channel-summary";
import { EDITED, isEdited } from "./edited-channels";

export function ChannelEditor({
  value,
  onChange,
  saved = [],
  taskId,
  error,
  idPrefix = "",
}: {
  value: ChannelConfig[];
  onChange: (next: ChannelConfig[]) => void;
  /** The channels as stored (a test send needs the saved config). */
  saved?: ChannelConfig[];
  /** Set when editing a saved watch: test buttons appear for saved channels. */
  taskId?: string;
  error?: string;
  /** Keeps element ids unique when several editors share a page. */
  idPrefix?: string;
}) {
  const free = EDITED.filter((s) => !value.some((c) => c.type === s.type));
  const [type, setType] = useState<string>(free[0]?.type ?? "");
  const [fields, setFields] = useState<Record<string, string>>({});
  const [pasted, setPasted] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const spec = channelOf(type) ?? free[0];

  function add() {
    setProblem(null);
    let config: ChannelConfig;
    if (pasted.trim()) {
      try {
        config = parseApprise(pasted);
      } catch (e) {
        return setProblem(e instanceof AppriseError ? e.message : String(e));
      }
      if (!isEdited(config)) return setProblem(`That is a ${config.type} URL: use the ${config.type} field above.`);
    } else {
      if (!spec) return;
      const missing = spec.fields.find((f) => !f.optional && !fields[f.name]?.trim());
      if (missing) return setProblem(`${missing.label} is needed (or paste an Apprise URL).`);
      config = {
        type: spec.type,
        ...Object.fromEntries(
          spec.fields.flatMap((f) => (fields[f.name]?.trim() ? [[f.name, fields[f.name]!.trim()]] : [])),
        ),
      };
    }
    if (value.some((c) => c.type === config.type))
      return setProblem(`This watch has a ${channelOf(config.type)?.label} channel already: remove it first.`);
    onChange([...value, config]);
    setFields({});
    setPasted("");
    setType(EDITED.find((s) => s.type !== config.type && !value.some((c) => c.type === s.type))?.type ?? "");
  }

  const isSaved = (c: ChannelConfig) => saved.some((s) => JSON.stringify(s) === JSON.stringify(c));

  return (
    <div className="channel-editor" data-testid="channel-editor">
      {value.length ? (
        <ul className="channels" aria-label="Chat and push channels">
          {value.map((c) => (
            <li key={c.type}>
              <ChannelSummary channel={c} />
              <span className="row">
                {taskId && isSaved(c) ? <TestSend id={taskId} type={c.type as NotificationType} /> : null}
                <button
                  type="button"
                  className="secondary small"
                  onClick={() => onChange(value.filter((v) => v.type !== c.type))}
                  aria-label={`Remove the ${channelOf(c.type)?.label ?? c.type} channel`}
                >
                  Remove
                </button>
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      {free.length && spec ? (
        <details className="disclosure">
          <summary>Add a chat or push channel</summary>
          <div className="stack">
            <div className="field">
              <label htmlFor={`${idPrefix}channel-type`}>Channel</label>
              <select
                id={`${idPrefix}channel-type`}
                value={spec.type}
                onChange={(e) => {
                  setType(e.target.value);
                  setFields({});
                  setProblem(null);
                }}
              >
                {free.map((s) => (
                  <option key={s.type} value={s.type}>
                    {s.label}
                  </option>
                ))}
              </select>
              <p className="hint">{spec.help}</p>
            </div>
            {spec.fields.map((f) => (
              <div className="field" key={`${spec.type}-${f.name}`}>
                <label htmlFor={`${idPrefix}channel-${f.name}`}>
                  {f.label}
                  {f.optional ? <span className="muted"> (optional)</span> : null}
                </label>
                <input
                  id={`${idPrefix}channel-${f.name}`}
                  type={f.kind === "url" ? "url" : "text"}
                  value={fields[f.name] ?? ""}
                  placeholder={f.placeholder}
                  autoComplete="off"
                  spellCheck={false}
                  onChange={(e) => setFields({ ...fields, [f.name]: e.target.value })}
                />
              </div>
            ))}
            <div className="field">
              <label htmlFor={`${idPrefix}channel-apprise`}>Or paste an Apprise URL</label>
              <input
                id={`${idPrefix}channel-apprise`}
                type="text"
                value={pasted}
                placeholder={spec.apprise?.example}
                autoComplete="off"
                spellCheck={false}
                onChange={(e) => setPasted(e.target.value)}
              />
              <p className="hint">
                The URLs changedetection.io and Apprise use ({APPRISE_SCHEMES.map((s) => `${s}://`).join(", ")}) or the
                service&apos;s own URL.
              </p>
            </div>
            {problem ? (
              <p className="field-error" role="alert">
                {problem}
              </p>
            ) : null}
            <div>
              <button type="button" className="secondary" onClick={add}>
                Add channel
              </button>
            </div>
          </div>
        </details>
      ) : null}
    </div>
  );
}
