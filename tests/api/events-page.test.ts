import { describe, expect, inject, it } from "vitest";
import { signedInUser } from "../helpers/session";

// The dashboard's timeline renders its first page on the server: the rows are in the HTML the
// browser receives, before any script runs or any API call is made.

describe("dashboard events page", () => {
  it("has the first page of events, filtered as the URL says, in its HTML", async () => {
    const { live, request, cookie } = await signedInUser();
    const alice = (await request("POST", `/${live.id}/customers`, { body: { email: "alice@example.com" } })).body;
    await request("POST", `/${live.id}/customers/${alice.id}`, { body: { name: "Alice" } });
    const events = (await request("GET", `/${live.id}/events`)).body.items as { id: string; type: string }[];
    // The user's sign-in is in the trail too (an audit event, docs/request-logs.md).
    expect(events.map((event) => event.type)).toEqual(["customer.updated", "customer.created", "user.signed_in"]);

    const html = async (query = "") => {
      const response = await fetch(`${inject("apiBaseUrl")}/accounts/${live.id}/events${query}`, { headers: { Cookie: cookie } });
      expect(response.status).toBe(200);
      return response.text();
    };
    const all = await html();
    for (const event of events) expect(all).toContain(event.id);
    expect(all).toContain("Showing 1–3 of 3");

    const updatedOnly = await html("?event_type=customer.updated");
    expect(updatedOnly).toContain(events[0]!.id);
    expect(updatedOnly).not.toContain(events[1]!.id);
  });
});
