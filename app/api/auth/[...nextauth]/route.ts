import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/options";

// next-auth's own endpoints (sign-in, callbacks, session); not part of the REST API.
const handler = (request: Request, context: { params: Promise<{ nextauth: string[] }> }) =>
  NextAuth(request as never, context as never, authOptions());

export { handler as GET, handler as POST };
