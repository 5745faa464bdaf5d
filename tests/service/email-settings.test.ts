/** Email settings on the account: the defaults (UTC, no quiet hours, no digest), changed field by field; bad values → 422. */
import { describe, expect, it } from "vitest";
import { withService } from "../helpers/service";

const app = withService();
const api = app.call;
const signIn = async () => {
  const user = await app.newUser();
  return { token: user.token, email: user.email };
};

describe("email settings", () => {
  it("are on the account (UTC, no quiet hours, no digest by default) and change field by field; bad values → 422", async () => {
    const user = await signIn();
    expect((await api("GET", "/auth/me", { auth: user.token })).body.settings).toEqual({
      timezone: "UTC",
      quiet_hours: null,
      email_digest: "off",
    });
    const patch = (body: unknown) => api("PATCH", "/api/v1/users/me/settings", { auth: user.token, body });
    const saved = await patch({ timezone: "Europe/Berlin", quiet_hours: { start: "22:30", end: "07:00" } });
    expect(saved.status).toBe(200);
    expect(saved.body.settings).toEqual({
      timezone: "Europe/Berlin",
      quiet_hours: { start: "22:30", end: "07:00" },
      email_digest: "off",
    });
    expect((await patch({ email_digest: "daily" })).body.settings).toEqual({
      timezone: "Europe/Berlin",
      quiet_hours: { start: "22:30", end: "07:00" },
      email_digest: "daily",
    });
    expect((await patch({ quiet_hours: null, email_digest: "off" })).body.settings).toEqual({
      timezone: "Europe/Berlin",
      quiet_hours: null,
      email_digest: "off",
    });

    for (const bad of [
      { timezone: "Mars/Olympus" },
      { timezone: "" },
      { quiet_hours: { start: "25:00", end: "07:00" } },
      { quiet_hours: { start: "7:00", end: "08:00" } },
      { quiet_hours: { start: "08:00", end: "08:00" } },
      { quiet_hours: { start: "08:00" } },
      { email_digest: "weekly" },
      { timezone: "UTC", colour: "blue" },
      { timezone: 5 },
    ]) {
      const r = await patch(bad);
      expect(r.status, JSON.stringify(bad)).toBe(422);
      expect(Array.isArray(r.body.detail)).toBe(true);
    }
    expect((await api("GET", "/auth/me", { auth: user.token })).body.settings.timezone).toBe("Europe/Berlin"); // nothing half-written
    expect((await api("PATCH", "/api/v1/users/me/settings", { auth: "Bearer nope", body: {} })).status).toBe(401);
  });
});
