/** `workflows://host:port/WorkflowID/Signature`, `msteams://team/A/B/C` and a pasted Workflows or connector URL. */
import { AppriseError, unquote, type Apprise, type AppriseUrl } from "../kit/apprise";

/** What Apprise's workflows:// stands for: a Teams Workflows ("Post to a channel when a webhook request is received") URL. */
function workflowsUrl(url: AppriseUrl) {
  const q = url.query;
  const [workflow, pathSignature] = url.path;
  const signature = q.signature ?? q.sig ?? pathSignature;
  const id = q.workflow ?? q.id ?? workflow;
  if (!id || !signature)
    throw new AppriseError("a Teams Workflows URL is workflows://host[:port]/WorkflowID/Signature");
  const powerAutomate = /^(1|y|yes|true|on)$/i.test(q.pa ?? q.powerautomate ?? "");
  const route = q.route ?? q.routeid;
  const path = powerAutomate ? `/powerautomate/automations/direct${route ? `/cu/${route}` : ""}` : "";
  const version = q["api-version"] ?? q.ver ?? (powerAutomate ? "2022-03-01-preview" : "2016-06-01");
  const query = new URLSearchParams({ "api-version": version, sp: "/triggers/manual/run", sv: "1.0", sig: signature });
  return `https://${unquote(url.host)}${url.port ? `:${url.port}` : ""}${path}/workflows/${id}/triggers/manual/paths/invoke?${query}`;
}

/** Apprise's msteams:// (an Office 365 connector): msteams://team/TokenA/TokenB/TokenC[/TokenD]. */
function connectorUrl(url: AppriseUrl) {
  const [a, b, c, d] = url.path;
  if (!a || !b || !c) throw new AppriseError("a Teams connector URL is msteams://team/TokenA/TokenB/TokenC");
  return `https://${unquote(url.host)}.webhook.office.com/webhookb2/${a}/IncomingWebhook/${b}/${c}${d ? `/${d}` : ""}`;
}

export const apprise: Apprise = {
  schemes: ["workflows", "workflow", "msteams"],
  example: "workflows://host:443/WorkflowID/Signature",
  parse: (url) => ({ url: url.scheme === "msteams" ? connectorUrl(url) : workflowsUrl(url) }),
  native(raw) {
    const m =
      /^https?:\/\/([\w.-]+(?::[1-9]\d{0,5})?)(\/powerautomate\/automations\/direct(?:\/cu\/(\d+))?)?\/workflows\/([\w-]+)\/triggers\/manual\/paths\/invoke\/?(\?.+)$/i.exec(
        raw,
      );
    if (!m) return null;
    const pa = m[2] ? `&pa=yes${m[3] ? `&route=${m[3]}` : ""}` : "";
    return `workflows://${m[1]}/${m[4]}/${m[5]}${pa}`;
  },
};
