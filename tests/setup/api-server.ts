import type { TestProject } from "vitest/node";
import { migratePostgres } from "@/db/migrate";
import { createFreshDatabase } from "../helpers/database";
import { startApp } from "../helpers/server";

declare module "vitest" {
  export interface ProvidedContext {
    apiBaseUrl: string;
    databaseUrl: string;
  }
}

/** One fresh PostgreSQL database and one `next start` on it for the whole api project. */
export default async function setup(project: TestProject) {
  const database = await createFreshDatabase("api");
  await migratePostgres(database.url);
  const app = await startApp({ DATABASE_URL: database.url });
  project.provide("apiBaseUrl", app.baseUrl);
  project.provide("databaseUrl", database.url);
  return async () => {
    await app.stop();
    if (process.env.DEBUG_APP_OUTPUT) console.log(app.output());
    await database.drop();
  };
}
