import type { INestApplication } from '@nestjs/common';
import { workflowOpenApiSchemas } from '#contracts';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

/**
 * Builds the reference from the controllers and DTOs, and serves it as JSON and as a page. The
 * server is `publicUrl` rather than a relative one, so a copy of the document saved elsewhere (in
 * Postman, or a client generator) still names the installation it describes.
 */
export function setupOpenApi(app: INestApplication, publicUrl: string): OpenAPIObject {
  const document = buildOpenApiDocument(app, publicUrl);
  SwaggerModule.setup('docs/api', app, document, { jsonDocumentUrl: 'docs/openapi.json', raw: ['json'] });
  return document;
}

/** The document alone, also built without a running server for the console's client (export-openapi). */
export function buildOpenApiDocument(app: INestApplication, publicUrl: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Flowmesh API')
    .setDescription('Workflows, runs, agents, skills and SQL databases of an organization.')
    .setVersion('1')
    .setOpenAPIVersion('3.1.0')
    .addServer(publicUrl.replace(/\/+$/, ''), 'This installation')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'An organization key: `Authorization: Bearer fm_…`.' },
      'organizationKey',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description:
          "A member's session token (from /api/auth/sign-in) as a bearer token, or the session cookie.",
      },
      'session',
    )
    .addSecurityRequirements('organizationKey')
    .addSecurityRequirements('session')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  // Hand-written JSON Schemas: the diagram and each node type's properties, as the validator reads them.
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...workflowOpenApiSchemas() },
  };
  const health = document.paths['/api/health']?.get;
  if (health) health.security = [];
  documentBodyRefusals(document);
  return document;
}

/**
 * A route that takes a body may also refuse it before any handler runs: too large (BODY_LIMIT_BYTES)
 * or not JSON. The fuzz test (apps/e2e/src/api-fuzz) found both answered but undocumented.
 */
function documentBodyRefusals(document: OpenAPIObject): void {
  const error = { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorDto' } } } };
  for (const operations of Object.values(document.paths)) {
    for (const method of ['post', 'put', 'patch'] as const) {
      const operation = operations[method];
      if (!operation) continue;
      operation.responses['413'] ??= { description: 'error.code: payload_too_large', ...error };
      operation.responses['415'] ??= { description: 'error.code: unsupported_media_type', ...error };
    }
  }
}
