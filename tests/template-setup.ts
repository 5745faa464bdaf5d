/** Global setup of every project with a database: the template each test database and test server copies. */
import { prepareTemplate } from "./helpers/server";

export default async function setup() {
  const started = Date.now();
  await prepareTemplate();
  console.log(`test database template ready in ${Math.round((Date.now() - started) / 1000)} s`);
}
