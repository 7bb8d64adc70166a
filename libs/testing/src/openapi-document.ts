import { RawClient } from './raw-client.js';

/**
 * The OpenAPI document as the gateway serves it at `/docs/openapi.json`, as far as the tests read
 * it: the document itself is checked by Redocly and by openapi.e2e-spec.ts, not by this type.
 */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  servers?: unknown[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    securitySchemes: Record<string, unknown>;
    schemas: Record<string, OpenApiSchema>;
  };
}

export interface OpenApiOperation {
  parameters?: unknown[];
  security?: unknown[];
  requestBody?: { required?: boolean; content: Record<string, { schema: OpenApiSchema }> };
  responses: Record<string, unknown>;
}

export interface OpenApiSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, OpenApiSchema>;
  [keyword: string]: unknown;
}

/** Reads the served document, checking it was served. */
export async function fetchOpenApiDocument(baseUrl: string): Promise<OpenApiDocument> {
  const response = await new RawClient(baseUrl).get<OpenApiDocument>('/docs/openapi.json');
  if (response.status !== 200) throw new Error(`/docs/openapi.json answered ${response.status}`);
  return response.body;
}
