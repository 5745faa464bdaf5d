"use client";
/**
 * The watch list's search box and sort menu: a plain GET form (it works without JavaScript), sent again as soon as
 * the sort changes. The state filter rides along hidden, so searching keeps it.
 */
import { useRef } from "react";
import { SORTS, type Sort } from "./sorts";

export function ListControls({ q, sort, state }: { q: string; sort: Sort; state?: string }) {
  const form = useRef<HTMLFormElement>(null);
  return (
    <form ref={form} className="list-controls" method="get" action="/dashboard" role="search">
      <div className="field search-field">
        <label htmlFor="watch-q" className="sr-only">
          Search your watches
        </label>
        <input
          id="watch-q"
          type="search"
          name="q"
          defaultValue={q}
          placeholder="Search name, query or condition"
          maxLength={200}
        />
      </div>
      {state ? <input type="hidden" name="state" value={state} /> : null}
      <div className="field fit sort-field">
        <label htmlFor="watch-sort">Sort</label>
        <select id="watch-sort" name="sort" defaultValue={sort} onChange={() => form.current?.requestSubmit()}>
          {SORTS.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className="secondary">
        Search
      </button>
    </form>
  );
}
