import { EventsSubjects } from '#contracts';
import { RpcClient } from '#nats';
import { Controller, Headers, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

import { Public } from '../auth/public.decorator.js';
import { BodyLimit } from '../http/body-size.decorator.js';
import type { RawBodyRequest } from './raw-body.js';

const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * Where apps deliver events (`webhook/received`), signed the Standard Webhooks way with the
 * connection's secret rather than with an API key. The events service checks the signature and
 * stores the delivery before this answers 202, so an acknowledged delivery is never lost.
 */
@ApiExcludeController()
@Public('hooks')
@BodyLimit('hook')
@Controller('hooks')
export class HooksController {
  constructor(private readonly rpc: RpcClient) {}

  @Post(':connectionId')
  @HttpCode(202)
  receive(
    @Param('connectionId') connectionId: string,
    @Headers() headers: Record<string, string | string[] | undefined>,
    @Req() request: RawBodyRequest,
  ) {
    const signature: Record<string, string> = {};
    for (const name of SIGNATURE_HEADERS) {
      const value = headers[name];
      if (typeof value === 'string') signature[name] = value;
    }
    return this.rpc.request(EventsSubjects.hooksReceive, null, {
      connectionId,
      headers: signature,
      body: request.rawBody ?? '',
    });
  }
}
