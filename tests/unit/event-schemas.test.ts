import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import { EVENT_DESCRIPTIONS, EVENT_TYPES, type EventType } from "@/lib/events/catalogue";
import { eventTypeCatalogue } from "@/lib/events-api/event-types";
import { EVENT_EXAMPLES, eventSchemaStem } from "@/lib/events-api/payloads";
import type { EventRow } from "@/lib/events-api/serialize";
import { openApiDocument } from "@/lib/server/openapi";
import { webhookPayload } from "@/lib/webhooks/payload";
import { componentErrors, validateEvents } from "../helpers/event-check";

type Json = Record<string, unknown>;
const document = openApiDocument();
const schemas = document.components!.schemas as Record<string, Json>;

/** The stored row an example's Event was served from. */
function rowOf(event: Json): EventRow {
  return {
    id: event.id,
    accountId: "acc_unit",
    type: event.type,
    aggregateType: event.aggregate_type,
    aggregateId: event.aggregate_id,
    data: event.data,
    previousData: event.previous_data,
    metadata: event.metadata,
    correlationId: event.correlation_id,
    requestId: event.request_id,
    version: event.version,
    sequence: event.sequence,
    created: new Date(event.created as string),
    actorType: event.actor_type,
    actorId: event.actor_id,
  } as EventRow;
}

const example = (type: EventType) => EVENT_EXAMPLES[type]!;

// Ajv compiles the 51 bodies, their union and the Events once: seconds on a busy machine.
beforeAll(() => {
  expect(componentErrors("WebhookEvent", example("invoice.paid").webhook)).toBeNull();
  expect(componentErrors("Event", example("invoice.paid").event)).toBeNull();
}, 120_000);

describe("event schemas in the OpenAPI document", () => {
  it("has a webhook, a body component and an Event member for every catalogue type", () => {
    for (const type of EVENT_TYPES) {
      const stem = eventSchemaStem(type);
      const body = document.webhooks?.[type]?.post?.requestBody as { content: Record<string, { schema: { $ref: string } }> };
      expect(body.content["application/json"]!.schema.$ref, type).toBe(`#/components/schemas/${stem}WebhookEvent`);
      expect((schemas[`${stem}WebhookEvent`]!.properties as Record<string, Json>).type!.const).toBe(type);
      expect((schemas[`${stem}Event`]!.properties as Record<string, Json>).type!.const).toBe(type);
    }
    const union = schemas.WebhookEvent as { oneOf: unknown[]; discriminator: { propertyName: string; mapping: Record<string, string> } };
    expect(union.oneOf).toHaveLength(EVENT_TYPES.length);
    expect(union.discriminator.propertyName).toBe("type");
    expect(Object.keys(union.discriminator.mapping).sort()).toEqual([...EVENT_TYPES].sort());
    expect((schemas.Event as { oneOf: unknown[] }).oneOf).toHaveLength(EVENT_TYPES.length);
    // Rendered once, as the service sends them (no input/output split of the aggregates).
    expect(Object.keys(schemas).filter((name) => name.endsWith("Output"))).toEqual([]);
  });

  it("has a recorded example of every type, shown in the document", () => {
    expect(Object.keys(EVENT_EXAMPLES).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      expect(schemas[`${eventSchemaStem(type)}WebhookEvent`]!.example, type).toEqual(example(type).webhook);
      expect(schemas[`${eventSchemaStem(type)}Event`]!.example, type).toEqual(example(type).event);
    }
  });

  it.each([...EVENT_TYPES])("%s: the example validates, as the webhook body and as the Event", (type) => {
    const stem = eventSchemaStem(type);
    expect(componentErrors(`${stem}WebhookEvent`, example(type).webhook)).toBeNull();
    expect(componentErrors("WebhookEvent", example(type).webhook)).toBeNull();
    expect(componentErrors(`${stem}Event`, example(type).event)).toBeNull();
    // The webhook example is the body the Event example makes (one recording, two views).
    const row = rowOf(example(type).event as Json);
    expect(JSON.parse(JSON.stringify(webhookPayload(row, example(type).webhook.livemode as boolean)))).toEqual(example(type).webhook);
  });

  it("finds an event whose entity state is not its type's", () => {
    const invoice = rowOf(example("invoice.paid").event as Json);
    const customer = rowOf(example("customer.created").event as Json);
    const failures = validateEvents(
      [
        { row: { ...invoice, data: { ...invoice.data, total_amount_atom: "12.00" } }, livemode: false },
        { row: { ...customer, type: "invoice.created" }, livemode: false },
        { row: { ...customer, data: { ...customer.data, surprise: 1 } }, livemode: false },
        { row: customer, livemode: false },
      ],
      "unit",
    );
    expect(failures.map((failure) => [failure.type, failure.as])).toEqual([
      ["invoice.paid", "webhook"],
      ["invoice.paid", "event"],
      ["invoice.created", "webhook"],
      ["invoice.created", "event"],
      ["customer.created", "webhook"],
      ["customer.created", "event"],
    ]);
    expect(failures[0]!.errors).toContain("total_amount_atom");
  });
});

describe("the event type catalogue (GET /event-types)", () => {
  // Compiles 51 self-contained schemas.
  it("lists every type with its description and a self-contained JSON Schema its example satisfies", { timeout: 120_000 }, () => {
    const { items } = eventTypeCatalogue();
    expect(items.map((item) => item.type)).toEqual([...EVENT_TYPES]);
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    for (const item of items) {
      expect(item.description).toBe(EVENT_DESCRIPTIONS[item.type as EventType]);
      const validate = ajv.compile(item.schema);
      expect(validate(example(item.type as EventType).webhook), `${item.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(validate(example(item.type === "invoice.paid" ? "customer.created" : "invoice.paid").webhook)).toBe(false);
    }
  });
});
