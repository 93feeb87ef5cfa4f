"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, retry: 1, refetchOnWindowFocus: true } } }),
  );
  // No next-auth SessionProvider: pages read the session on the server, and its mount-time
  // /api/auth/session calls raced the sign-in form's CSRF cookie.
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
