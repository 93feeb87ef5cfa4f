/**
 * Benchmarks measure throughput, not the rate limiter (issue 12): every app a benchmark starts
 * inherits this process's environment, so lifting the limits here lifts them there. Import for
 * its effect, before any app starts.
 */
process.env.RATE_LIMIT_PER_SECOND ??= "1000000000";
process.env.RATE_LIMIT_SIGN_IN_PER_MINUTE ??= "1000000000";
