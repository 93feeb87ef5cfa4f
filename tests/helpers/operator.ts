import { issueOperatorToken } from "@/lib/platform/service";
import { api } from "./api";

/** A platform operator: a secret token of the platform's billing account, and a client with it. */
export async function newOperator() {
  const token = await issueOperatorToken("test operator");
  return { accountId: token.accountId, token: token.token, client: api(token.token) };
}
