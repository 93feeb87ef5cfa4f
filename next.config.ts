import type { NextConfig } from "next";

/**
 * Every response, API JSON included: no MIME sniffing. Dashboard pages: no framing
 * (clickjacking), no full URLs in Referer, and a CSP. Next.js's inline bootstrap scripts need
 * 'unsafe-inline' unless every page is rendered per request with a nonce; the pages hold no
 * user-written HTML, so the CSP's work here is to forbid framing, plugins, foreign scripts and
 * foreign form targets (docs/security.md). `next dev` also needs 'unsafe-eval' for fast refresh.
 */
const ALL_HEADERS = [{ key: "X-Content-Type-Options", value: "nosniff" }];
const FRAME_HEADERS = [
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
];
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${process.env.NODE_ENV === "production" ? "" : " 'unsafe-eval'"}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  // GitHub sign-in posts to next-auth, which redirects to GitHub.
  "form-action 'self' https://github.com",
  "frame-ancestors 'none'",
].join("; ");
const PAGE_SECURITY_HEADERS = [...FRAME_HEADERS, { key: "Content-Security-Policy", value: CONTENT_SECURITY_POLICY }];

/**
 * The hosted checkout and invoice pages of an account connected to Stripe run Stripe.js and its
 * Payment Element: Stripe's script, its frames (the Element, 3-D Secure) and its API, as Stripe
 * documents for a CSP (docs/payments.md, "The hosted pages with Stripe").
 */
const withStripe = (policy: string, images: string) =>
  policy
    .replace(/script-src ([^;]*)/, "script-src $1 https://js.stripe.com https://*.js.stripe.com")
    .replace("connect-src 'self'", "connect-src 'self' https://api.stripe.com")
    .replace("img-src 'self' data: blob:", `img-src 'self' data: blob: ${images}`)
    .replace("default-src 'self'", "default-src 'self'; frame-src https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com");
const STRIPE_PAGE_SECURITY_HEADERS = [...FRAME_HEADERS, { key: "Content-Security-Policy", value: withStripe(CONTENT_SECURITY_POLICY, "https://*.stripe.com") }];
/**
 * The portal's payment-method page saves a card with Stripe.js (a SetupIntent; docs/payments.md):
 * every portal page allows it, since the portal's links navigate in the browser and keep the
 * policy of the page first loaded. Its logo stays any https: image.
 */
const PORTAL_SECURITY_HEADERS = [...FRAME_HEADERS, { key: "Content-Security-Policy", value: withStripe(CONTENT_SECURITY_POLICY, "https:") }];

const nextConfig: NextConfig = {
  // PGlite ships WebAssembly and data files; postgres.js opens sockets: both run as plain Node.
  // rate-limiter-flexible loads drizzle-orm by a computed import: it must run unbundled too.
  // drizzle-orm and zod are large and imported by every server entry (instrumentation, pages,
  // the API): required from node_modules, `next dev` does not compile them once per entry, and
  // a fresh clone's first page comes 1.5–3 s sooner (docs/performance.md; docs/rules/operations.md, "Embedded database template").
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "rate-limiter-flexible", "drizzle-orm", "zod", "pdfkit"],
  poweredByHeader: false,
  // `npm test` type-checks the whole tree, the route types of `next typegen` included, with tsgo
  // (`npm run typecheck:routes`) just before it builds, and says so (BUILD_TYPES_CHECKED=1): the
  // build's own check (JavaScript tsc over the same tsconfig) would be a second full check, about a
  // minute of CPU (docs/testing.md, "Before the tests"). Every other build checks its types.
  typescript: { ignoreBuildErrors: process.env.BUILD_TYPES_CHECKED === "1" },
  // MAX_BODY_BYTES (lib/api/limits.ts), which the HTTP guard enforces before Next.js reads a body.
  experimental: {
    serverActions: { bodySizeLimit: "1mb" },
    // `npm run test:coverage` builds the server unminified: its source maps then map every line of
    // lib/, where a minified chunk's map only some (scripts/test-coverage.ts).
    ...(process.env.BUILD_FOR_COVERAGE === "1" ? { serverMinification: false } : {}),
  },
  async headers() {
    return [
      { source: "/:path*", headers: ALL_HEADERS },
      { source: "/((?!api/|reference|portal).*)", headers: PAGE_SECURITY_HEADERS },
      { source: "/portal/:path*", headers: PORTAL_SECURITY_HEADERS },
      // After the pages' own: the later entry's Content-Security-Policy is the one sent.
      { source: "/checkout/:path*", headers: STRIPE_PAGE_SECURITY_HEADERS },
      { source: "/invoice/:path*", headers: STRIPE_PAGE_SECURITY_HEADERS },
      { source: "/reference", headers: FRAME_HEADERS },
    ];
  },
};

export default nextConfig;
