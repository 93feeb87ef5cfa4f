import { ServiceError } from "@/lib/errors";
import type { Deprecation } from "./operation";

/**
 * Before its sunset a deprecated operation works and says so (`Deprecation`, `Sunset`, `Link` to
 * the successor); from the sunset instant on it answers 410 naming the replacement.
 */
export function applyDeprecation(deprecation: Deprecation, headers: Headers, now: Date = new Date()): void {
  headers.set("Link", `<${deprecation.link}>; rel="successor-version"`);
  if (now.getTime() >= deprecation.sunset.getTime()) {
    throw new ServiceError(
      "gone",
      `This operation was retired on ${deprecation.sunset.toUTCString()}. Use ${deprecation.replacement} instead.`,
      { replacement: deprecation.replacement },
    );
  }
  headers.set("Deprecation", "true");
  headers.set("Sunset", deprecation.sunset.toUTCString());
}
