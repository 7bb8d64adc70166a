import type { OpenApiDocument } from './openapi-fuzz.js';
import { RawClient } from './raw-client.js';

/**
 * The OpenAPI document as the gateway serves it at `/docs/openapi.json`: the parts the fuzzing reads
 * (`OpenApiDocument`), and besides them those the tests of the document itself read.
 */
export type ServedOpenApiDocument = OpenApiDocument & {
  openapi: string;
  info: { title: string; version: string };
  servers?: unknown[];
  paths: Record<string, Record<string, { security?: unknown[]; requestBody?: { required?: boolean } }>>;
  components: { securitySchemes: Record<string, unknown> };
};

/** Reads the served document, checking it was served. */
export async function fetchOpenApiDocument(baseUrl: string): Promise<ServedOpenApiDocument> {
  const response = await new RawClient(baseUrl).get<ServedOpenApiDocument>('/docs/openapi.json');
  if (response.status !== 200) throw new Error(`/docs/openapi.json answered ${response.status}`);
  return response.body;
}
