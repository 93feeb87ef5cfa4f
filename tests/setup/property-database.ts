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
/** The property database's invoice PDFs checked besides the first of each shape and optional block. */
const PDF_SAMPLE = 100;

export default async function setup(project: TestProject) {
  startEventCheck();
  // Its invoices' PDFs: the first of every shape and optional block, and a sample of 100 (each costs
  // two renders, qpdf and pdftotext; all of them, thousands from one renderer, would take minutes at
  // the end of a run). tests/helpers/pdf-check.ts, docs/testing.md "The check of issued PDFs".
  const database = await createMigratedDatabase("property", { pdfSample: PDF_SAMPLE });
  project.provide("propertyDatabaseUrl", database.url);
  return async () => {
    await database.drop();
    finishEventCheck("property tests");
  };
}
