import { z } from "zod";
import { defineOperation } from "@/lib/api/operation";

export const Health = z.object({ status: z.literal("ok") }).meta({ id: "Health" });

export const getHealthOperation = defineOperation({
  operationId: "getHealth",
  method: "GET",
  path: "/health",
  summary: "Liveness",
  description:
    "Answers `{\"status\":\"ok\"}` while the process serves requests. No token, no database: a liveness probe must not fail (and restart the server) because a dependency is slow.",
  tag: "Health",
  access: "public",
  response: { status: 200, description: "The process is alive.", schema: Health },
});
