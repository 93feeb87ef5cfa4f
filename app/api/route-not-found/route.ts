import { failWith } from "@/lib/api/handler";
import { ServiceError } from "@/lib/errors";

// Every /api path that no route matches is rewritten here (next.config.ts), so unknown paths
// answer a problem body rather than Next's HTML page.
const notFound = failWith(() => new ServiceError("not_found", "No API operation exists at this path."));

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE, notFound as OPTIONS };
