import { absolute, relative } from "./format";

export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span>—</span>;
  return (
    <time dateTime={iso} title={absolute(iso)}>
      {relative(iso)}
    </time>
  );
}
