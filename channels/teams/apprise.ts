/** `workflows://host:port/WorkflowID/Signature`, `msteams://team/A/B/C` and a pasted Workflows or connector URL. */
import { AppriseError, hostPart, pathParts, type Apprise } from "../kit/apprise";

/** What Apprise's workflows:// stands for: a Teams Workflows ("Post to a channel when a webhook request is received") URL. */
function workflowsUrl(url: URL) {
  const [workflow, pathSignature] = pathParts(url);
  const signature = url.searchParams.get("signature") ?? url.searchParams.get("sig") ?? pathSignature;
  const id = url.searchParams.get("workflow") ?? url.searchParams.get("id") ?? workflow;
  if (!id || !signature)
    throw new AppriseError("a Teams Workflows URL is workflows://host[:port]/WorkflowID/Signature");
  const powerAutomate = /^(1|y|yes|true|on)$/i.test(
    url.searchParams.get("pa") ?? url.searchParams.get("powerautomate") ?? "",
  );
  const route = url.searchParams.get("route") ?? url.searchParams.get("routeid");
  const path = powerAutomate ? `/powerautomate/automations/direct${route ? `/cu/${route}` : ""}` : "";
  const version =
    url.searchParams.get("api-version") ??
    url.searchParams.get("ver") ??
    (powerAutomate ? "2022-03-01-preview" : "2016-06-01");
  const query = new URLSearchParams({ "api-version": version, sp: "/triggers/manual/run", sv: "1.0", sig: signature });
  return `https://${hostPart(url)}${url.port ? `:${url.port}` : ""}${path}/workflows/${id}/triggers/manual/paths/invoke?${query}`;
}

/** Apprise's msteams:// (an Office 365 connector): msteams://team/TokenA/TokenB/TokenC[/TokenD]. */
function connectorUrl(url: URL) {
  const [a, b, c, d] = pathParts(url);
  if (!a || !b || !c) throw new AppriseError("a Teams connector URL is msteams://team/TokenA/TokenB/TokenC");
  return `https://${hostPart(url)}.webhook.office.com/webhookb2/${a}/IncomingWebhook/${b}/${c}${d ? `/${d}` : ""}`;
}

export const apprise: Apprise = {
  schemes: ["workflows", "workflow", "msteams"],
  example: "workflows://host:443/WorkflowID/Signature",
  parse: (url) => ({ url: url.protocol === "msteams:" ? connectorUrl(url) : workflowsUrl(url) }),
  native: (url) =>
    /\/workflows\/[^/]+\/triggers\/manual\/paths\/invoke$/i.test(url.pathname) ||
    /\.webhook\.office\.com$/i.test(url.hostname)
      ? { url: url.toString() }
      : null,
};
