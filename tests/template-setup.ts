/** Global setup of every project with a database: the template each test database and test server copies. */
import { prepareTemplate } from "./helpers/server";

export default async function setup() {
  await prepareTemplate();
}
