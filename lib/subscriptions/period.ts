import { addUtcMonths, DAY_MS } from "@/lib/time";
import type { RECURRING_INTERVALS } from "@/lib/prices/schema";

export type Interval = (typeof RECURRING_INTERVALS)[number];

/**
 * `start` plus `count` intervals. Days and weeks are exact 24 h days (UTC has no DST). Months and
 * years are calendar steps in UTC that keep the time of day; a day of month the target month lacks
 * is clamped to its last day (Jan 31 + 1 month = Feb 28/29), and because every period end is
 * computed from the anchor, not from the previous end, the anchor day comes back (Mar 31).
 */
export function addIntervals(start: Date, interval: Interval, count: number): Date {
  if (interval === "day") return new Date(start.getTime() + count * DAY_MS);
  if (interval === "week") return new Date(start.getTime() + count * 7 * DAY_MS);
  return addUtcMonths(start, interval === "month" ? count : count * 12);
}

/** The period end following `currentEnd`: the first anchor + k × (interval × count) after it. */
export function nextPeriodEnd(anchor: Date, currentEnd: Date, interval: Interval, count: number): Date {
  for (let k = 1; ; k++) {
    const end = addIntervals(anchor, interval, k * count);
    if (end.getTime() > currentEnd.getTime()) return end;
  }
}
