/**
 * The time the service decides quiet hours and digests by. WATCH_CLOCK_OFFSET_MS shifts it (tests set "just before the
 * quiet hours end" instead of waiting for a real morning); durable sleeps still last the real time they compute.
 */
import { env } from "./env";

export const now = () => new Date(Date.now() + env.WATCH_CLOCK_OFFSET_MS);
