import { getServerSession } from "next-auth";
import { problemBody, type ProblemBody } from "@/lib/api/problem";
import { sessionOptions } from "@/lib/auth/session-options";
import { ServiceError, type FieldError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import type { TeamContext } from "./members";
import { assertRoleAllows, type Role } from "@/lib/auth/roles";

export type ActionFailure = { ok: false; message: string; errors: FieldError[]; problem: ProblemBody };
export type ActionResult<T extends object> = ({ ok: true } & T) | ActionFailure;

/** A ServiceError as a server action's answer: the message for the form, and the API's problem body. */
export function actionFailure(error: ServiceError, action: string, requestId = newId("request")): ActionFailure {
  return {
    ok: false,
    message: error.message,
    errors: (error.extras.errors as FieldError[] | undefined) ?? [],
    problem: problemBody(error, requestId, `action:${action}`),
  };
}

/**
 * The one role check of the dashboard's server actions (the /api operations have theirs in
 * lib/api/handler.ts): the signed-in user, with the role read from their row for this request,
 * must hold at least `needed`; then `run` acts as them. A refusal changes nothing and answers the
 * 401/403 problem body the API would.
 */
export async function roleAction<T extends object>(
  action: string,
  needed: Role,
  run: (ctx: TeamContext) => Promise<T>,
): Promise<ActionResult<T>> {
  // The action's request id: its audit events' `request_id`, and its problem's when refused.
  const requestId = newId("request");
  try {
    const session = await getServerSession(sessionOptions());
    if (!session?.user?.id) throw new ServiceError("unauthorized", "Your session has ended. Sign in again.");
    const { id: userId, organizationId, role } = session.user;
    assertRoleAllows(role, needed);
    return { ok: true, ...(await run({ userId, organizationId, role, requestId })) };
  } catch (error) {
    if (error instanceof ServiceError) return actionFailure(error, action, requestId);
    throw error;
  }
}
