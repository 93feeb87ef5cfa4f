import type { TestProject } from "vitest/node";
import { createMigratedDatabase } from "../helpers/database";
import { finishEventCheck, startEventCheck } from "../helpers/event-check";

declare module "vitest" {
  export interface ProvidedContext {
    propertyDatabaseUrl: string;
  }
}

/**
 * The property project's database: a copy of the run's migrated template, of its own so that no
 * app (the api project's `next start`, its clock ticker and delivery driver) works on the same rows
 * while the property tests call the service verbs in-process. Its events and invoice PDFs are
 * checked when it is dropped, like every database of the run (tests/helpers/event-check.ts).
 */
export default async function setup(project: TestProject) {
  startEventCheck();
  // Its invoices' PDFs: a sample of 300, as one account of the api project at most (each costs two
  // renders, qpdf and pdftotext; 300 of each of its dozen accounts took minutes at the end of a run).
  const database = await createMigratedDatabase("property", { maxPdfs: 300 });
  project.provide("propertyDatabaseUrl", database.url);
  return async () => {
    await database.drop();
    finishEventCheck("property tests");
  };
}
