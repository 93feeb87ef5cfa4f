import { and, asc, isNotNull, lte, notInArray } from "drizzle-orm";
import { getDb } from "@/db/client";
import { eventDeliveries } from "@/db/schema";
import { attemptDelivery } from "./attempt";
import { log, safeError } from "@/lib/log";

const POLL_INTERVAL_MS = 1_000;
const MAX_IN_FLIGHT = 16;

/**
 * The embedded delivery driver: without an Inngest server, this process attempts every due
 * delivery on the same schedule, reading due rows from the database (so deliveries left pending or
 * mid-attempt by a killed process resume after a restart). Several processes may run one each:
 * attempts claim their row with FOR UPDATE SKIP LOCKED and a lease.
 */
export class DeliveryDriver {
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private pollAgain = false;
  private readonly inFlight = new Set<string>();

  get running(): boolean {
    return this.timer !== null;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.wake(), POLL_INTERVAL_MS);
    this.wake();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Look for due deliveries now. */
  wake(): void {
    if (!this.timer) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = true;
    void this.poll()
      .catch((error) => log().error({ err: safeError(error) }, "webhook driver poll failed"))
      .finally(() => {
        this.polling = false;
        if (this.pollAgain) {
          this.pollAgain = false;
          this.wake();
        }
      });
  }

  private async poll(): Promise<void> {
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    if (room <= 0) return;
    const db = await getDb();
    const due = await db
      .select({ id: eventDeliveries.id })
      .from(eventDeliveries)
      .where(
        and(
          isNotNull(eventDeliveries.dueAt),
          lte(eventDeliveries.dueAt, new Date()),
          this.inFlight.size > 0 ? notInArray(eventDeliveries.id, [...this.inFlight]) : undefined,
        ),
      )
      .orderBy(asc(eventDeliveries.dueAt))
      .limit(room);
    for (const { id } of due) {
      this.inFlight.add(id);
      void attemptDelivery(id, { mode: "due" })
        .catch((error) => log().error({ delivery_id: id, err: safeError(error) }, "webhook attempt failed"))
        .finally(() => {
          this.inFlight.delete(id);
          this.wake();
        });
    }
  }
}

const DRIVER = Symbol.for("billing-service.delivery-driver");
type GlobalWithDriver = typeof globalThis & { [DRIVER]?: DeliveryDriver };

/** The process's driver (one per process, however often Next.js bundles this module). */
export function deliveryDriver(): DeliveryDriver {
  const store = globalThis as GlobalWithDriver;
  return (store[DRIVER] ??= new DeliveryDriver());
}
