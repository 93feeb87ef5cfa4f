import { readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { PROJECT_ROOT } from "./server";

const cookiesOf = (response: Response) => response.headers.getSetCookie().map((c) => c.split(";")[0]!);

type ActionResult = { ok: boolean; signedIn?: boolean; message?: string; errors?: { field: string }[] };

/**
 * Calls a page's server action as the dashboard's forms do (a POST with `Next-Action`, its id from
 * the build's manifest): its result, decoded from the RSC answer, and the session cookie it set.
 */
export function callAction(base: string, page: string, exportedName: string, input: unknown, cookie?: string) {
  return callActionWith<ActionResult>(base, page, exportedName, [input], cookie);
}

/**
 * callAction with the action's arguments as they go on the wire: an action the page binds
 * (`action.bind(null, id)`) is posted with the bound arguments first, then the form's. `R` is what
 * the action answers (the object with `ok` in the RSC stream).
 */
export async function callActionWith<R extends { ok: boolean }>(base: string, page: string, exportedName: string, args: readonly unknown[], cookie?: string) {
  const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, ".next/server/server-reference-manifest.json"), "utf8")) as {
    node: Record<string, { exportedName?: string }>;
  };
  const actionId = Object.entries(manifest.node).find(([, action]) => action.exportedName === exportedName)?.[0];
  expect(actionId, exportedName).toBeDefined();
  const response = await fetch(`${base}${page}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Next-Action": actionId!,
      "Content-Type": "text/plain;charset=UTF-8",
      Accept: "text/x-component",
      Origin: base,
      ...(cookie ? { Cookie: cookie } : {}),
    },
    body: JSON.stringify(args),
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  // The RSC stream: one `<id>:<json>` row per chunk; the action's result is the object with `ok`.
  const result = text
    .split("\n")
    .map((line) => {
      try {
        return JSON.parse(line.slice(line.indexOf(":") + 1)) as unknown;
      } catch {
        return undefined;
      }
    })
    .find((value): value is R => typeof value === "object" && value !== null && "ok" in value);
  if (!result) throw new Error(`No action result in: ${text.slice(0, 500)}`);
  const renewed = cookiesOf(response).find((c) => c.startsWith("next-auth.session-token="));
  return { result, renewed };
}

