/**
 * What `npm run test:coverage` measures: lib/. The one filter of the vitest config's coverage
 * provider (the test workers) and of scripts/test-coverage.ts (the apps, the figures).
 */
export const isLibSource = (sourcePath: string) => sourcePath.startsWith("lib/");
