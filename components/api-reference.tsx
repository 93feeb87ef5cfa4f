"use client";

import { ApiReferenceReact } from "@scalar/api-reference-react";
import "@scalar/api-reference-react/style.css";

/** The readable reference, rendered from the served OpenAPI document by Scalar. */
export function ApiReference({ specUrl }: { specUrl: string }) {
  return (
    <ApiReferenceReact
      configuration={{ url: specUrl, hideClientButton: false, withDefaultFonts: false, telemetry: false }}
    />
  );
}
