/**
 * What a domain folder declares about its objects for the registries that sit below it
 * (docs/ARCHITECTURE.md, "Add a billing object"): `lib/<domain>/manifest.ts` exports one
 * `manifest` of this type. Pure data: a manifest imports nothing but this type. The registries are
 * generated from the manifests by `npm run registries` (scripts/registries.ts; `npm run lint` runs
 * it with `--check`), so the low layers (ids, the event catalogue) copy the data and never import a
 * domain folder.
 */
export type DomainManifest = {
  /** Id prefixes of the folder's objects, by id kind (`newId("paymentMethod")` → `pm_…`). */
  ids?: Record<string, string>;
  /** The folder's event groups, in our own namespaces (the spec's 11 groups stay in lib/events/catalogue.ts). */
  events?: readonly ManifestEventGroup[];
};

export type ManifestEventGroup = {
  /** The group's name in the dashboard's event-type picker. */
  group: string;
  /** The aggregate (entity type) of its events, e.g. `payment_method`. */
  aggregateType: string;
  /** The export of the folder's `schema.ts` that the events carry (the object the operations answer with). */
  schema: string;
  /** The id kind of the aggregate's ids (a key of ID_PREFIXES): sample events and the synthetic loader make ids of it. */
  idKind: string;
  /** How busy the aggregate is in the synthetic event load (db/synthetic-events.ts), relative to `invoice: 3`. */
  weight: number;
  /** Each event type with its description for receivers (`GET /api/event-types`, the OpenAPI webhooks). */
  types: Record<string, string>;
};
