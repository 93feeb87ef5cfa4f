import { apiRouter } from "@/lib/api/routes";

// Every /api operation (lib/api/operations-index.ts), and the 404 problem for unknown /api paths.
// Static routes beside this one (auth, inngest, cron) are matched before it.
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = apiRouter.exports;
