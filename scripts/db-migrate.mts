/**
 * npm run db:migrate            apply pending migrations (DATABASE_URL, else the embedded database in DATA_DIR)
 * npm run db:migrate:create X   write prisma/migrations/<timestamp>_X from the schema.prisma diff
 * npm run db:migrate:check      exit 1 when schema.prisma has changes without a migration (CI guard)
 */
import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { applyMigrations, migrateDatabase, pendingSchemaDiff, projectPaths } from "../server/db/schema-engine.ts";
import { pgliteExtensions } from "../server/db/index.ts";

const extensions = await pgliteExtensions();
/** PGlite's adapter, with a shadow database (where diffs replay the migrations) that loads the same extensions. */
const pgliteAdapter = (db: PGlite) =>
  Object.assign(new PrismaPGlite(db), {
    connectToShadowDb: () => new PrismaPGlite(new PGlite({ extensions })).connect(),
  });

const [cmd, name = "migration"] = process.argv.slice(2);

async function main() {
  if (cmd === "deploy") {
    if (process.env.DATABASE_URL) {
      const applied = await migrateDatabase(process.env.DATABASE_URL);
      console.log(applied.length ? `applied: ${applied.join(", ")}` : "no pending migrations");
      return;
    }
    const dir = path.join(process.env.DATA_DIR ?? ".data", "pglite");
    fs.mkdirSync(dir, { recursive: true });
    const db = new PGlite(dir, { extensions });
    try {
      const applied = await applyMigrations(pgliteAdapter(db));
      console.log(applied.length ? `applied: ${applied.join(", ")}` : "no pending migrations");
    } finally {
      await db.close();
    }
    return;
  }
  // Diffs run on a throwaway in-memory PGlite (its shadow database is another in-memory PGlite).
  const db = new PGlite({ extensions });
  try {
    const sql = await pendingSchemaDiff(pgliteAdapter(db));
    if (cmd === "check") {
      if (sql) {
        console.error("schema.prisma has changes without a migration:\n" + sql);
        process.exitCode = 1;
      } else console.log("migrations are up to date with schema.prisma");
    } else if (cmd === "create") {
      if (!sql) return void console.log("no changes");
      const dir = path.join(
        projectPaths().migrationsDir,
        `${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}_${name}`,
      );
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, "migration.sql"), sql);
      console.log("created", path.relative(process.cwd(), dir));
    } else throw new Error(`unknown command ${cmd}: use deploy, create <name> or check`);
  } finally {
    await db.close();
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
