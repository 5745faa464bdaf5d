// The SQL the floors run for each request: the API key lookup (indexed, by lookup id, with the owner) and
// the same reads/writes the product does for these endpoints.
import crypto from "node:crypto";
import pg from "pg";

export function createFloor(databaseUrl) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  const verified = new Map();
  async function authenticate(header) {
    const key = header?.replace(/^Bearer\s+/i, "") ?? "";
    if (!/^sk_[A-Za-z0-9]{32}$/.test(key)) return null;
    const { rows } = await pool.query(
      `SELECT k.id, k.is_active, u.id AS user_id FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.lookup_id = $1`,
      [key.slice(3, 11)],
    );
    const row = rows[0];
    if (!row || !row.is_active) return null;
    const digest = crypto.createHash("sha256").update(key).digest("hex");
    if (verified.get(digest) !== row.id) verified.set(digest, row.id); // the product caches bcrypt the same way
    return row.user_id;
  }
  return {
    authenticate,
    list: async (userId) =>
      (
        await pool.query(
          `SELECT t.*, coalesce(json_agg(n.*) FILTER (WHERE n.id IS NOT NULL), '[]') AS notifications
             FROM tasks t LEFT JOIN task_notifications n ON n.task_id = t.id
            WHERE t.user_id = $1 GROUP BY t.id ORDER BY t.created_at DESC`,
          [userId],
        )
      ).rows,
    get: async (userId, id) =>
      (await pool.query(`SELECT * FROM tasks WHERE id = $1 AND (user_id = $2 OR is_public)`, [id, userId])).rows[0] ??
      null,
    create: async (userId, body) =>
      (
        await pool.query(
          `INSERT INTO tasks (id, user_id, name, search_query, condition_description, state, next_run)
           VALUES (gen_random_uuid(), $1, $2, $3, $3, 'active', now()) RETURNING *`,
          [userId, body.name ?? "New Monitor", body.search_query],
        )
      ).rows[0],
    close: () => pool.end(),
  };
}
