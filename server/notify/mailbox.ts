/**
 * The mailbox an email address reaches, as every email cap counts it: `Victim+1@Example.com`, `victim+2@example.com`
 * and `victim@example.com` land in one inbox, and so do Gmail's dotted spellings. Lower case; a `+tag` dropped (a
 * leading plus is kept: it is the whole name); for gmail.com and googlemail.com, dots dropped and one domain. The
 * migration that introduced it backfilled stored addresses with the same rules in SQL.
 */
const GMAIL = new Set(["gmail.com", "googlemail.com"]);

export function mailboxOf(address: string): string {
  const lower = address.trim().toLowerCase();
  const at = lower.lastIndexOf("@");
  if (at < 1) return lower;
  let local = lower.slice(0, at);
  let domain = lower.slice(at + 1);
  const plus = local.indexOf("+");
  if (plus > 0) local = local.slice(0, plus);
  if (GMAIL.has(domain)) {
    local = local.replaceAll(".", "");
    domain = "gmail.com";
  }
  return `${local}@${domain}`;
}
