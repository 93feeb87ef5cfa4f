import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import boundaries from "eslint-plugin-boundaries";
import { defineConfig, globalIgnores } from "eslint/config";

/*
 * The house rules of docs/STYLE.md, enforced. Each block says which rule it holds and why its
 * exemptions are exempt.
 */

/** Outside these, the code runs on the service's clocks (lib/time.ts), never on `new Date()`. */
const REAL_TIME_ALLOWED = [
  // The clock module itself: the real clock, the account clocks, the test clock.
  "lib/clock/**",
  "lib/time.ts",
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
    message: "Domain code reads the account's clock: ctx.now() (or realNow() from lib/time.ts for real-time transport).",
  },
  {
    selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
    message: "Domain code reads the account's clock: ctx.now() (or realNow() from lib/time.ts for real-time transport).",
  },
];

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  globalIgnores([".next/**", "node_modules/**", ".data/**", ".cache/**", "next-env.d.ts", "db/migrations/**", "test-results/**"]),
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
    // Layer boundaries: who may import whom (docs/ARCHITECTURE.md, "Layers"). Inside lib/, from the
    // bottom: values (configuration, log, ids, errors, money, time, the account context) and
    // declarations (zod schemas, the event catalogue) importable from every layer; infrastructure
    // (db/, jobs, the event store, webhook delivery, the clock's machinery, authentication,
    // idempotency, the request recorder); domain objects, each owning its table; flows spanning
    // several objects (checkout, the portal, lib/flows); the HTTP API (lib/api, every
    // operations.ts/handlers.ts, the composition root lib/server, cron and Inngest entry points);
    // then app/ and components/. An arrow may only point down; what a lower layer must run from
    // an upper one is handed to it at start-up (lib/server/wiring.ts). Elements match in order: the
    // first pattern that matches a file names its layer. `mode: "full"` matches whole file paths
    // (operations.ts and handlers.ts are the API inside a domain's folder); boundaries 7 prints a
    // deprecation notice for it, and file descriptors ("boundaries/files") are its successor once
    // policies can rank them like element types. scripts/import-graph.ts (`npm run graph:check`,
    // part of `npm run lint`) adds what a per-file rule cannot see: cycles, inside a layer too.
    files: ["**/*.{ts,tsx}"],
    plugins: { boundaries },
    settings: {
      "boundaries/elements": [
        { type: "app", pattern: "app/**", partialMatch: false },
        { type: "components", pattern: "components/**", partialMatch: false },
        {
          type: "values",
          mode: "full",
          pattern: [
            "lib/{config,deploy,ids,id-prefixes,keys,secrets,log,errors,rows,money,intl,currencies,schemas,context,time,permissions}.ts",
            // A domain folder's manifest (pure data, importing nothing) and what scripts/registries.ts copies from them.
            "lib/{manifest,manifests.generated}.ts",
            "lib/*/manifest.ts",
            // List paging (the query schema, envelopes, limits) is used by services and db/page.ts, not only by HTTP.
            "lib/api/pagination.ts",
          ],
        },
        {
          type: "api",
          mode: "full",
          pattern: [
            "lib/api/**",
            "lib/*/operations.ts",
            "lib/*/handlers.ts",
            // The composition root: every operation and handler, the OpenAPI document, next-auth's
            // route and options, token minting (reads every operation), the start-up wiring.
            "lib/server/**",
            "lib/openapi-example.ts",
            "lib/http/**",
            // The server actions' wrapper.
            "lib/teams/action.ts",
            // Background entry points: Inngest functions and the Vercel Cron routes' work.
            "inngest/functions/**",
            "lib/cron/**",
          ],
        },
        { type: "declarations", pattern: ["lib/*/schema.ts", "lib/*/statuses.ts", "lib/email-outbox/types.ts", "lib/events/catalogue.ts", "lib/events-api/payloads.ts", "lib/events-api/aggregate-schemas.generated.ts", "lib/events/examples.json"], mode: "full" },
        {
          type: "infrastructure",
          mode: "full",
          pattern: [
            "lib/events/**",
            "lib/events-api/**",
            "lib/jobs/**",
            "lib/webhooks/**",
            "inngest/client.ts",
            "lib/clock/**",
            "lib/auth/**",
            "lib/idempotency/**",
            "lib/request-recorder/**",
            // The email outbox's writing side runs inside emitEvent (docs/emails.md); its driver is woken by the job providers.
            "lib/email-outbox/**",
          ],
        },
        { type: "flows", mode: "full", pattern: ["lib/flows/**", "lib/checkout/**", "lib/portal/**", "lib/seed.ts", "lib/embedded.ts"] },
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
              // Nothing below the pages reaches up into the UI or the tooling.
              from: { element: { types: { anyOf: ["api", "flows", "domain", "infrastructure", "declarations", "values", "db"] } } },
              disallow: { to: { element: { types: { anyOf: ["app", "components", "tooling"] } } } },
            },
            {
              // A flow calls domain verbs and throws ServiceErrors; HTTP is the API layer's business.
              from: { element: { type: "flows" } },
              disallow: { to: { element: { type: "api" } } },
            },
            {
              // A domain object knows the objects it references, never the flows that combine it with others.
              from: { element: { type: "domain" } },
              disallow: { to: { element: { types: { anyOf: ["api", "flows"] } } } },
            },
            {
              // Events, jobs, delivery, the clock and authentication serve every domain and know none of
              // them (they carry its objects as data; the clock's transitions are handed in).
              from: { element: { type: "infrastructure" } },
              disallow: { to: { element: { types: { anyOf: ["api", "flows", "domain"] } } } },
            },
            {
              // Declarations are zod schemas and lists: they import other declarations and values only.
              from: { element: { type: "declarations" } },
              disallow: { to: { element: { types: { anyOf: ["api", "flows", "domain", "infrastructure", "db"] } } } },
            },
            {
              from: { element: { type: "values" } },
              disallow: { to: { element: { types: { anyOf: ["api", "flows", "domain", "infrastructure", "declarations", "db"] } } } },
            },
            {
              // The database layer stores what the domain decides: it imports declarations and values only.
              from: { element: { type: "db" } },
              disallow: { to: { element: { types: { anyOf: ["api", "flows", "domain", "infrastructure"] } } } },
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
  {
    // A response whose body is never read keeps its connection busy: the server's shutdown waits for
    // it (config-start's app was killed past its grace on every run for this). Tests read a status
    // with statusOf() (tests/helpers/status.ts), which reads the body to its end.
    files: ["tests/**/*.ts", "e2e/**/*.ts", "bench/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[property.name='status'][object.type='AwaitExpression'][object.argument.callee.name='fetch']",
          message: "Read the body too: statusOf(url, init) (tests/helpers/status.ts). An unread body holds its connection, and the server's shutdown waits for it.",
        },
      ],
    },
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
