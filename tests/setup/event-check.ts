import { finishEventCheck, startEventCheck } from "../helpers/event-check";

/**
 * The embedded project's part of the central event check (tests/helpers/event-check.ts): every
 * event of the PGlite data directories and PostgreSQL databases its tests made must validate.
 */
export default function setup() {
  startEventCheck();
  return () => finishEventCheck("embedded tests");
}
