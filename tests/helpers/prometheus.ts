/** A parser of the Prometheus text exposition format (what GET /metrics answers): families, their type and samples. */
export type Sample = { name: string; labels: Record<string, string>; value: number };
export type Family = { name: string; type: string; help: string; samples: Sample[] };

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/gy;

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  let m: RegExpExecArray | null;
  while (LABEL.lastIndex < text.length && (m = LABEL.exec(text)))
    labels[m[1]!] = m[2]!.replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
  if (LABEL.lastIndex !== text.length) throw new Error(`bad labels: {${text}}`);
  return labels;
}

export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const family = (name: string) => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, type: "untyped", help: "", samples: [] }));
    return f;
  };
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      if (meta[1] === "TYPE") family(meta[2]!).type = meta[3]!;
      else family(meta[2]!).help = meta[3]!;
      continue;
    }
    if (line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const name = m[1]!;
    // Histogram and summary samples belong to their family: x_bucket, x_sum, x_count.
    const base =
      [...families.keys()].find(
        (f) => name === f || (name.startsWith(f + "_") && /_(bucket|sum|count|total|created)$/.test(name)),
      ) ?? name;
    family(base).samples.push({ name, labels: parseLabels(m[2] ?? ""), value: Number(m[3]) });
  }
  return families;
}

/** The value of the sample of `name` whose labels include `labels` (0 when none). */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}) {
  for (const f of families.values())
    for (const s of f.samples)
      if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) return s.value;
  return 0;
}
