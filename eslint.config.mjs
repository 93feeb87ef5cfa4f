import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import boundaries from "eslint-plugin-boundaries";
import { defineConfig, globalIgnores } from "eslint/config";

/*
 * The house rules of docs/STYLE.md, enforced. Each block says which rule it holds and why its
 * exemptions are exempt.
 */

/** Outside these, the code runs on the service's clocks (lib/clock/time.ts), never on `new Date()`. */
const REAL_TIME_ALLOWED = [
  // The clock module itself: the real clock, the account clocks, the test clock.
  "lib/clock/**",
  // Transport and infrastructure run on real time whatever an account's test clock says: job
  // hand-offs, cron passes, rate limits, deprecation headers, token expiry, idempotency keys'
  // lifetime, id timestamps. (lib/webhooks and inngest/ are not exempt: they name real time with
  // realNow(), so a domain timestamp there cannot slip onto the real clock unseen.)
  "lib/jobs/**",
  "lib/cron/**",
  "lib/api/**",
  "lib/auth/**",
  "lib/idempotency/**",
  "lib/ids.ts",
  "lib/log.ts",
  // The database sockets' watchdog measures real silence on the wire.
  "db/watchdog.ts",
];

/** Files that may read `process.env`: lib/config.ts, and what runs before or outside the app. */
const ENV_ALLOWED = [
  "lib/config.ts",
  // Next.js and tool configuration, evaluated by the tools themselves, not by the app.
  "next.config.ts",
  "drizzle.config.ts",
  "playwright.config.ts",
  "playwright.screenshots.config.ts",
  "vitest.config.ts",
  // Runs before the configuration may be read (NEXT_RUNTIME, NEXT_PHASE) and sets NEXTAUTH_URL.
  "instrumentation.ts",
  "instrumentation-node.ts",
  // Scripts, tests, benchmarks and e2e specs set up processes and databases through the environment.
  "scripts/**",
  "tests/**",
  "bench/**",
  "e2e/**",
];

/**
 * One function prices a price (lib/prices/amount.ts `amountOf`): a multiplication that names a unit
 * amount anywhere else is the bug of issue 42 (a tiered price's `unit_amount_atom` is 0, so
 * unit amount × quantity bills nothing). lib/prices is exempt: it is that function. Tests, e2e and
 * benchmarks are not linted by it: their in-test models compute expected amounts independently.
 */
const UNIT_AMOUNT_PRODUCT = [
  {
    selector: "BinaryExpression[operator='*'] :matches(Identifier[name=/^(unitAmountAtom|unit_amount_atom)$/], Literal[value='unit_amount_atom'])",
    message: "A price's amount is amountOf(price, quantity) (lib/prices/amount.ts): never unit amount × quantity (a tiered price's unit amount is 0).",
  },
  {
    selector: "AssignmentExpression[operator='*='] :matches(Identifier[name=/^(unitAmountAtom|unit_amount_atom)$/], Literal[value='unit_amount_atom'])",
    message: "A price's amount is amountOf(price, quantity) (lib/prices/amount.ts): never unit amount × quantity (a tiered price's unit amount is 0).",
  },
];
const PRICED_CODE = ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}", "lib/**/*.{ts,tsx}", "db/**/*.ts", "inngest/**/*.ts", "scripts/**/*.ts"];

/** Domain code's clock rule (below): no `new Date()` / `Date.now()`. */
const CLOCK_SYNTAX = [
  {
    selector: "NewExpression[callee.name='Date'][arguments.length=0]",
    message: "Domain code reads the account's clock: ctx.now() (or realNow() from lib/clock/time.ts for real-time transport).",
  },
  {
    selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
    message: "Domain code reads the account's clock: ctx.now() (or realNow() from lib/clock/time.ts for real-time transport).",
  },
];

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  globalIgnores([".next/**", "node_modules/**", ".data/**", "next-env.d.ts", "db/migrations/**", "test-results/**"]),
  {
    // The HTTP layer (routes, operation handlers) and the UI reach the database only through the domain services.
    files: ["app/**", "components/**", "lib/*/handlers.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@/db", "@/db/*", "**/db/*", "drizzle-orm", "drizzle-orm/*"],
              message: "app/, components/ and operation handlers call services in lib/; they never import db/ or drizzle.",
            },
          ],
        },
      ],
    },
  },
  {
    // One function prices a price (UNIT_AMOUNT_PRODUCT above). A later block setting
    // no-restricted-syntax replaces this one's list, so the clock block repeats it.
    files: PRICED_CODE,
    ignores: ["lib/prices/**"],
    rules: { "no-restricted-syntax": ["error", ...UNIT_AMOUNT_PRODUCT] },
  },
  {
    // Domain timestamps and "is it due" decisions read ctx.now() (the account's clock, test clock included).
    files: ["lib/**/*.ts", "db/**/*.ts", "inngest/**/*.ts"],
    ignores: [...REAL_TIME_ALLOWED, "lib/prices/**"],
    rules: { "no-restricted-syntax": ["error", ...CLOCK_SYNTAX, ...UNIT_AMOUNT_PRODUCT] },
  },
  {
    // lib/prices is the one place that multiplies a unit amount; the clock rule holds there too.
    files: ["lib/prices/**/*.ts"],
    rules: { "no-restricted-syntax": ["error", ...CLOCK_SYNTAX] },
  },
  {
    // One place reads the environment, validates it and documents every variable.
    files: ["**/*.{ts,tsx,mjs}"],
    ignores: ENV_ALLOWED,
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read settings through lib/config.ts (config() or its live readers)." },
      ],
    },
  },
  {
    // Layer boundaries: who may import whom (docs/ARCHITECTURE.md, "Layers in lint"). Inside lib/,
    // from the top: the edge (HTTP and background entry points) → domain services → events and
    // jobs → db, with declarations (zod schemas, the event catalogue) and a shared kernel
    // (configuration, log, ids, errors, the account context, time helpers) importable from every
    // layer. Elements match in order: the first pattern that matches a file names its layer.
    // `mode: "full"` matches whole file paths (operations.ts and handlers.ts are the edge inside a
    // domain's folder); boundaries 7 prints a deprecation notice for it, and file descriptors
    // ("boundaries/files") are its successor once policies can rank them like element types.
    files: ["**/*.{ts,tsx}"],
    plugins: { boundaries },
    settings: {
      "boundaries/elements": [
        { type: "app", pattern: "app/**", partialMatch: false },
        { type: "components", pattern: "components/**", partialMatch: false },
        {
          type: "shared",
          mode: "full",
          pattern: [
            "lib/{config,deploy,ids,id-prefixes,keys,log,errors,rows,money,currencies,schemas,context}.ts",
            "lib/clock/time.ts",
            // List paging (the query schema, envelopes, limits) is used by services and db/page.ts, not only by HTTP.
            "lib/api/pagination.ts",
          ],
        },
        {
          type: "edge",
          mode: "full",
          pattern: [
            "lib/api/**",
            "lib/*/operations.ts",
            "lib/*/handlers.ts",
            "lib/openapi.ts",
            "lib/openapi-example.ts",
            "lib/http/**",
            // next-auth's route and options (sign-in rate limit), the server actions' wrapper.
            "lib/auth/route.ts",
            "lib/auth/options.ts",
            "lib/teams/action.ts",
            // Background entry points: Inngest functions and the Vercel Cron routes' work.
            "inngest/functions/**",
            "lib/cron/**",
          ],
        },
        { type: "declarations", pattern: ["lib/*/schema.ts", "lib/*/statuses.ts", "lib/emails/types.ts", "lib/events/catalogue.ts", "lib/events/payloads.ts", "lib/events/examples.json"], mode: "full" },
        // The job providers start the domain's time-driven work (the clock ticker, due transitions).
        { type: "job-providers", pattern: ["lib/jobs/embedded.ts", "lib/jobs/serverless.ts"], mode: "full" },
        // The email outbox's writing side runs inside emitEvent (docs/emails.md); the driver is woken by the job providers.
        { type: "events", pattern: ["lib/events/**", "lib/jobs/**", "lib/webhooks/**", "inngest/client.ts", "lib/emails/enqueue.ts", "lib/emails/wording.ts", "lib/emails/driver.ts"], mode: "full" },
        { type: "domain", pattern: "lib/**", mode: "full" },
        { type: "db", pattern: "db/**", partialMatch: false },
        { type: "tooling", pattern: ["scripts/**", "tests/**", "bench/**", "e2e/**"], partialMatch: false },
      ],
    },
    rules: {
      "boundaries/dependencies": [
        "error",
        {
          default: "allow",
          policies: [
            {
              // The UI and the routes go through lib/ (the no-restricted-imports rule above names drizzle too).
              from: { element: { types: { anyOf: ["app", "components"] } } },
              disallow: { to: { element: { type: "db" } } },
            },
            {
              // Nothing below the pages reaches up into the HTTP/UI layers or the tooling.
              from: { element: { types: { anyOf: ["edge", "domain", "events", "job-providers", "declarations", "shared", "db"] } } },
              disallow: { to: { element: { types: { anyOf: ["app", "components", "tooling"] } } } },
            },
            {
              // A domain service takes { ctx, input } and throws ServiceErrors; HTTP (handle(), problems,
              // routing, operations) is the edge's business.
              from: { element: { type: "domain" } },
              disallow: { to: { element: { type: "edge" } } },
            },
            {
              // Events, jobs and webhook delivery serve every domain and know none of them.
              from: { element: { types: { anyOf: ["events", "job-providers"] } } },
              disallow: { to: { element: { type: "edge" } } },
            },
            {
              from: { element: { type: "events" } },
              disallow: { to: { element: { type: "domain" } } },
            },
            {
              // Declarations are zod schemas and lists: they import other declarations and the shared kernel only.
              from: { element: { type: "declarations" } },
              disallow: { to: { element: { types: { anyOf: ["edge", "domain", "events", "job-providers", "db"] } } } },
            },
            {
              from: { element: { type: "shared" } },
              disallow: { to: { element: { types: { anyOf: ["edge", "domain", "events", "job-providers", "declarations", "db"] } } } },
            },
            {
              // The database layer stores what the domain decides: it imports declarations and the shared kernel only.
              from: { element: { type: "db" } },
              disallow: { to: { element: { types: { anyOf: ["edge", "domain", "events", "job-providers"] } } } },
            },
          ],
        },
      ],
    },
  },
  {
    // A promise nobody awaits loses its errors (and, in a transaction, its ordering): await it,
    // return it, or mark it `void` where running on is the point.
    files: ["**/*.{ts,tsx}"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
    },
  },
  {
    // The service logs through pino (lib/log.ts: JSON, redaction, no SQL parameters). lib/embedded.ts
    // prints the local login banner for a developer's terminal, not a log line.
    files: ["lib/**", "db/client.ts", "db/watchdog.ts"],
    ignores: ["lib/embedded.ts"],
    rules: { "no-console": "error" },
  },
  // The SDK's build output (a local `npm pack` in packages/sdk) is not source.
  globalIgnores(["packages/sdk/dist/**"]),
  {
    // The SDK is a package of its own (packages/sdk): it ships without the app, so it never imports it.
    files: ["packages/sdk/src/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["@/*", "../../*"], message: "packages/sdk is standalone: import only its own modules and its dependencies." }] },
      ],
    },
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
]);
