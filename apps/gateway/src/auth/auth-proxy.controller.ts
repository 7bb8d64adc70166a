import { CatalogSubjects } from '#contracts';
import { RpcClient } from '#nats';
import { All, Controller, Inject, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { GatewayConfig } from '../gateway.config.js';
import { Public } from './public.decorator.js';

/** Headers a client could write to pass for another address. */
const CLIENT_ADDRESS_HEADERS = new Set(['x-forwarded-for', 'x-real-ip', 'forwarded', 'true-client-ip']);

/**
 * The browser routes of better-auth (sign-up, sign-in, sign-out, organization switch, keys), answered
 * by catalog, which owns the identity tables. Not part of /api/v1, so not in the reference.
 */
@ApiExcludeController()
@Controller('api/auth')
export class AuthProxyController {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(GatewayConfig) private readonly config: GatewayConfig,
  ) {}

  @Public('auth')
  @All('*')
  async forward(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined && name !== 'content-length' && !CLIENT_ADDRESS_HEADERS.has(name))
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    // better-auth keys its own limits on this header: it names the address the gateway believes
    // (TRUST_PROXY), never what a client wrote there.
    headers['x-forwarded-for'] = request.ip;
    const response = await this.rpc.request(CatalogSubjects.authHttp, null, {
      method: request.method,
      url: new URL(request.url, this.config.PUBLIC_URL).toString(),
      headers,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    });
    const cookies = response.headers.filter(([name]) => name === 'set-cookie').map(([, value]) => value);
    for (const [name, value] of response.headers) {
      if (name !== 'set-cookie' && name !== 'content-length' && name !== 'content-encoding')
        void reply.header(name, value);
    }
    if (cookies.length > 0) void reply.header('set-cookie', cookies);
    await reply.status(response.status).send(response.body);
  }
}
