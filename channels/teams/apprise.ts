/**
 * `workflows://host[:port]/WorkflowID/Signature` (also `?id=`/`?workflow=` with the signature from the path, or
 * `?signature=`), `?pa=yes` for a Power Automate URL, and a pasted Workflows URL. `msteams://` and Office 365 connector
 * URLs are refused: Microsoft retired the connectors and Apprise retired the scheme.
 */
import { AppriseError, parseBool, unquote, type Apprise, type AppriseUrl } from "../kit/apprise";

const NOT_WORKFLOWS = "not a Teams Workflows URL: workflows://host[:port]/WorkflowID/Signature";
const RETIRED =
  "msteams:// (Office 365 connector webhooks) is retired: create a Teams Workflows webhook and use workflows://host/WorkflowID/Signature";

/** What Apprise's workflows:// stands for: a Teams Workflows ("Post to a channel when a webhook request is received") URL. */
function workflowsUrl(url: AppriseUrl) {
  const q = url.query;
  const entries = [...url.path];
  const id = q.workflow ?? q.id ?? entries.shift();
  const signature = q.signature ?? q.sig ?? entries.shift();
  if (!url.host || !id || !signature || !/^[\w-]+$/.test(id) || !/^[\w-]+$/.test(signature))
    throw new AppriseError(NOT_WORKFLOWS);
  if (q.template)
    throw new AppriseError("Adaptive Card templates (template=) are not supported: Watch sends its own card");
  const powerAutomate = parseBool(q.pa ?? q.powerautomate, false);
  const route = q.route ?? q.routeid;
  if (route && !/^\d+$/.test(route)) throw new AppriseError("the Power Automate route= must be a number");
  const path = powerAutomate ? `/powerautomate/automations/direct${route ? `/cu/${route}` : ""}` : "";
  const version = q["api-version"] || q.ver || (powerAutomate ? "2022-03-01-preview" : "2016-06-01");
  const query = new URLSearchParams({ "api-version": version, sp: "/triggers/manual/run", sv: "1.0", sig: signature });
  return `https://${unquote(url.host)}${url.port ? `:${url.port}` : ""}${path}/workflows/${id}/triggers/manual/paths/invoke?${query}`;
}

export const apprise: Apprise = {
  schemes: ["workflows", "workflow"],
  retired: ["msteams"],
  example: "workflows://host:443/WorkflowID/Signature",
  options: [
    "id",
    "workflow",
    "signature",
    "sig",
    "pa",
    "powerautomate",
    "route",
    "routeid",
    "ver",
    "api-version",
    "template",
    // Fixed in every Workflows URL (a pasted one carries them).
    "sp",
    "sv",
  ],
  parse(url) {
    if (url.scheme === "msteams") throw new AppriseError(RETIRED);
    return { url: workflowsUrl(url) };
  },
  native(raw) {
    if (/^https?:\/\/(outlook\.office(365)?\.com\/webhook\/|[\w-]+\.webhook\.office\.com\/webhookb2\/)/i.test(raw))
      return "msteams://";
    const m =
      /^https?:\/\/([\w.-]+(?::[1-9]\d{0,5})?)(\/powerautomate\/automations\/direct(?:\/cu\/(\d+))?)?\/workflows\/([\w-]+)\/triggers\/manual\/paths\/invoke\/?(\?.+)?$/i.exec(
        raw,
      );
    if (!m) return null;
    // Without its query (the signature) it is not a URL Apprise reads.
    if (!m[5]) return "workflows://";
    const pa = m[2] ? `&pa=yes${m[3] ? `&route=${m[3]}` : ""}` : "";
    return `workflows://${m[1]}/${m[4]}/${m[5]}${pa}`;
  },
};
