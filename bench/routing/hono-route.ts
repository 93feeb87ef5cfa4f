/**
 * The Hono + @hono/zod-openapi prototype that `npm run bench:routing` measures against the
 * operations router (issue 13). Not served: the benchmark copies the project, puts this file in
 * place of app/api/[[...path]]/route.ts there, and builds that copy. Every operation is mounted
 * (so the bundle holds the same handlers), each path parameter validated by zod-openapi, and the
 * request then handed to the operation's handle() (auth, limits, validation, idempotency as
 * served). 405 and CORS preflights are left out of the prototype.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { failWith, type RouteHandler } from "@/lib/api/handler";
import { API_HANDLERS } from "@/lib/server/routes";
import { ServiceError } from "@/lib/errors";

const app = new OpenAPIHono({ strict: true }).basePath("/api");
const notFound = failWith(() => new ServiceError("not_found", "No API operation exists at this path."));
const noParams = { params: Promise.resolve({}) };

for (const handle of API_HANDLERS) {
  const { operation } = handle;
  for (const path of [operation.path, operation.unscopedPath]) {
    if (path === undefined) continue;
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
    const route = createRoute({
      method: operation.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete",
      path,
      request: { params: z.object(Object.fromEntries(names.map((name) => [name, z.string().min(1)]))) },
      responses: { [operation.response.status]: { description: operation.response.description } },
    });
    // The route's declared responses carry no schema: handle() has already serialized the answer.
    app.openapi(route, ((context: { req: { raw: Request; valid: (target: "param") => Record<string, string> } }) =>
      handle(context.req.raw, { params: Promise.resolve(context.req.valid("param")) })) as never);
  }
}
app.notFound((context) => notFound(context.req.raw, noParams));

const serve: RouteHandler = async (request) => app.fetch(request);
export { serve as GET, serve as POST, serve as PUT, serve as PATCH, serve as DELETE, serve as OPTIONS };
