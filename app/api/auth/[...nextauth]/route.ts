import { nextAuthRoute } from "@/lib/server/auth-route";

// next-auth's own endpoints (sign-in, callbacks, session); not part of the REST API.
export { nextAuthRoute as GET, nextAuthRoute as POST };
