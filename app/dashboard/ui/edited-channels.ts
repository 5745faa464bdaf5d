import { CHANNELS } from "@/channels";

/**
 * The channels the channel editor handles: every one but email and webhook, which the forms ask for themselves. A
 * module of its own (not the editor's client module) so that server pages can call it too.
 */
export const EDITED = CHANNELS.filter((s) => s.type !== "email" && s.type !== "webhook");
export const isEdited = (c: { type: string }) => EDITED.some((s) => s.type === c.type);
