import 'reflect-metadata';

import { writeFileSync } from 'node:fs';

import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';

import { GatewayConfig } from '../gateway.config.js';
import { GatewayModule } from '../gateway.module.js';
import { buildOpenApiDocument } from './openapi.js';

/**
 * Writes the OpenAPI document that `/docs/openapi.json` serves, without NATS or a listening server:
 * Nest's preview mode reads the controllers and DTOs but instantiates no provider. The build feeds it
 * to openapi-typescript for the console's client (apps/console/build.mjs), so the console is
 * type-checked against the API of the same commit.
 *
 * Usage: `node dist/apps/gateway/src/docs/export-openapi.js <file>`
 */
const [file] = process.argv.slice(2);
if (!file) throw new Error('usage: export-openapi.js <file>');
const app = await NestFactory.create<NestFastifyApplication>(
  GatewayModule.forRoot(new GatewayConfig()),
  new FastifyAdapter(),
  { preview: true, logger: false, abortOnError: false },
);
writeFileSync(file, `${JSON.stringify(buildOpenApiDocument(app, 'http://localhost:3000'), null, 2)}\n`);
await app.close();
