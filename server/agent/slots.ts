/**
 * At most AGENT_CONCURRENCY agent runs at once in this process, handed out fairly: waiting runs are queued per
 * user and the next free slot goes to the next user in turn, so one user's burst cannot starve the others.
 */
import { env } from "../env";
import { forgetOnStop } from "../start-state";

type Waiter = () => void;
const queues = new Map<string, Waiter[]>(); // insertion order = round-robin order
let running = 0;
/** Set at shutdown: no slot is handed out any more. */
let closed = false;
forgetOnStop(() => {
  queues.clear();
  running = 0;
  closed = false;
});

function next() {
  if (closed || running >= env.AGENT_CONCURRENCY) return;
  const first = queues.entries().next();
  if (first.done) return;
  const [user, waiting] = first.value;
  const wake = waiting.shift()!;
  queues.delete(user);
  if (waiting.length) queues.set(user, waiting); // to the back of the line
  running++;
  wake();
}

export async function withAgentSlot<T>(userId: string, fn: () => Promise<T>): Promise<T> {
  await new Promise<void>((resolve) => {
    const waiting = queues.get(userId) ?? [];
    waiting.push(resolve);
    queues.set(userId, waiting);
    next();
  });
  try {
    return await fn();
  } finally {
    running--;
    next();
  }
}

/** A shutdown has begun: runs still waiting never start their agent here (the engine resumes them after a restart). */
export function closeAgentSlots() {
  closed = true;
}

export function runsWaitingForSlot() {
  let n = 0;
  for (const waiting of queues.values()) n += waiting.length;
  return n;
}
