import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships WebAssembly and data files; postgres.js opens sockets: both run as plain Node.
  serverExternalPackages: ["@electric-sql/pglite", "postgres"],
  poweredByHeader: false,
  async rewrites() {
    return {
      beforeFiles: [],
      afterFiles: [],
      // Checked after every route, dynamic ones included: only unknown /api paths land here.
      fallback: [{ source: "/api/:path*", destination: "/api/route-not-found" }],
    };
  },
};

export default nextConfig;
