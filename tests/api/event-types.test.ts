import { describe, expect, it } from "vitest";
import { EVENT_DESCRIPTIONS, EVENT_TYPES, aggregateTypeOf } from "@/lib/events/catalogue";
import { eventSchemaStem } from "@/lib/events-api/payloads";
import { api, apiBaseUrl } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";

describe("GET /event-types", () => {
  it("lists every type with its group, aggregate type, description and webhook JSON Schema, to anyone (public, as the OpenAPI document)", async () => {
    const merchant = await newMerchant();
    const response = await api(merchant.publishable.token).get("/event-types");
    expect(response.status, response.text).toBe(200);
    expect(response.body.object).toBe("list");
    expect(response.body.items.map((item: { type: string }) => item.type)).toEqual([...EVENT_TYPES]);
    const paid = response.body.items.find((item: { type: string }) => item.type === "invoice.paid");
    expect(paid).toMatchObject({
      object: "event_type",
      group: "Invoice",
      aggregate_type: aggregateTypeOf("invoice.paid"),
      description: EVENT_DESCRIPTIONS["invoice.paid"],
    });
    expect(paid.schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(paid.schema.$defs.InvoicePaidWebhookEvent.properties.type.const).toBe("invoice.paid");
    expect(paid.schema.$defs.Invoice.required).toContain("total_amount_atom");

    const secret = await api(merchant.secret.token).get("/event-types");
    expect(secret.status).toBe(200);
    expect(secret.text).toBe(response.text);
    const anonymous = await api().get("/event-types");
    expect(anonymous.status).toBe(200);
    expect(anonymous.text).toBe(response.text);
  });

  it("is in the served document, beside one webhook per type and the WebhookEvent union", async () => {
    const document = await (await fetch(`${apiBaseUrl()}/openapi.json`)).json();
    expect(document.paths["/event-types"].get.operationId).toBe("listEventTypes");
    expect(Object.keys(document.webhooks)).toEqual([...EVENT_TYPES]);
    expect(document.webhooks["invoice.paid"].post.requestBody.content["application/json"].schema.$ref).toBe(
      `#/components/schemas/${eventSchemaStem("invoice.paid")}WebhookEvent`,
    );
    expect(document.components.schemas.WebhookEvent.discriminator.propertyName).toBe("type");
    expect(document.components.schemas.Event.discriminator.propertyName).toBe("type");
  });
});
