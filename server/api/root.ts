import { authRouter } from "./routers/auth";
import { emailRouter } from "./routers/email";
import { followsRouter } from "./routers/follows";
import { notificationsRouter } from "./routers/notifications";
import { publicRouter } from "./routers/public";
import { tasksRouter } from "./routers/tasks";
import { usageRouter } from "./routers/usage";
import { usersRouter } from "./routers/users";
import { pageListsOf, router } from "./trpc";

export const appRouter = router({
  tasks: tasksRouter,
  notifications: notificationsRouter,
  auth: authRouter,
  users: usersRouter,
  public: publicRouter,
  email: emailRouter,
  usage: usageRouter,
  follows: followsRouter,
});

pageListsOf(appRouter._def.procedures);

export type AppRouter = typeof appRouter;
