"use client";
/**
 * The button behind a link sent by email (confirm an address, pause a watch, …): mail scanners open links, so the
 * link's page only shows what will happen, and this button does it with a POST to the API.
 */
import { useState } from "react";

export function LinkAction({
  endpoint,
  body,
  label,
  doneText,
}: {
  endpoint: string;
  body: Record<string, string>;
  label: string;
  doneText: string;
}) {
  const [state, setState] = useState<{ busy?: boolean; done?: boolean; error?: string }>({});
  async function act() {
    setState({ busy: true });
    try {
      const res = await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (res.ok) return setState({ done: true });
      const detail = ((await res.json().catch(() => ({}))) as { detail?: unknown }).detail;
      setState({ error: typeof detail === "string" ? detail : `Something went wrong (HTTP ${res.status}).` });
    } catch {
      setState({ error: "The server could not be reached. Try again." });
    }
  }
  if (state.done)
    return (
      <p role="status" className="notice">
        {doneText}
      </p>
    );
  return (
    <>
      <button type="button" onClick={act} disabled={state.busy}>
        {label}
      </button>
      {state.error ? (
        <p role="alert" className="notice">
          {state.error}
        </p>
      ) : null}
    </>
  );
}
