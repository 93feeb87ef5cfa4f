/*
 * Time, in one module: durations, calendar arithmetic, and the two clocks. Domain code reads the
 * account's clock (`ctx.now()`, made by accountClock); only what runs on real time whatever an
 * account's clock says (delivery scheduling, leases, token revocation) reads realNow(). Lint
 * allows `new Date()` and `Date.now()` here and in the infrastructure only (eslint.config.mjs).
 */

export const SECOND_MS = 1_000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
/** A UTC day: exactly 24 hours (UTC has no daylight saving). */
export const DAY_MS = 24 * HOUR_MS;

/** The real clock, for what runs on real time whatever an account's (test) clock says. */
export function realNow(): Date {
  return new Date();
}

/** The clock of an account whose time runs `offsetMs` ahead of the real clock (0 unless a sandbox test clock moved it). */
export function accountClock(offsetMs: number): () => Date {
  return () => new Date(Date.now() + offsetMs);
}

/**
 * `date` plus `months` calendar months in UTC, keeping the time of day; a day the target month
 * lacks is clamped to its last day (Jan 31 + 1 month = Feb 28/29).
 */
export function addUtcMonths(date: Date, months: number): Date {
  const total = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(year, month, Math.min(date.getUTCDate(), lastDay), date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()),
  );
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * An instant as an invoice line's description prints it (UTC): "1 Jan 2027" at midnight, else
 * with the time to the second, "15 Jan 2027 14:05:09 UTC" (a range that starts or ends mid-day,
 * e.g. a change's, says so).
 */
export function lineInstant(at: Date): string {
  const day = `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}`;
  const seconds = Math.floor(at.getTime() / SECOND_MS) * SECOND_MS;
  if (seconds % DAY_MS === 0) return day;
  return `${day} ${at.toISOString().slice(11, 19)} UTC`;
}

/** "1 Jan 2027 – 1 Feb 2027": the range [start, end) a line bills. */
export function lineRange(start: Date, end: Date): string {
  return `${lineInstant(start)} – ${lineInstant(end)}`;
}
