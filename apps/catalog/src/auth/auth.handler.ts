import {
  type AuthHttpRequest,
  type AuthHttpResponse,
  CatalogSubjects,
  type ResolveCredential,
} from '#contracts';
import { RpcData } from '#nats';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/transport-node';

import { AuthService } from './auth.service.js';

export const NATS_CONNECTION = Symbol('NATS_CONNECTION');

@Controller()
export class AuthHandler {
  constructor(
    private readonly auth: AuthService,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
  ) {}

  @MessagePattern(CatalogSubjects.authResolve)
  resolve(@RpcData('data') credential: ResolveCredential) {
    return this.auth.resolve(credential);
  }

  /** Sign-out, key deletion and membership changes tell every gateway to drop its cached credentials. */
  @MessagePattern(CatalogSubjects.authHttp)
  async http(@RpcData('data') request: AuthHttpRequest): Promise<AuthHttpResponse> {
    const { response, invalidates } = await this.auth.handleHttp(request);
    if (invalidates) this.nats.publish(CatalogSubjects.authInvalidated);
    return response;
  }
}
