import {
  type AuthHttpRequest,
  type AuthHttpResponse,
  CatalogSubjects,
  type Principal,
  type ResolveCredential,
} from '#contracts';
import { Handles, NATS_CONNECTION, publishEvent } from '#nats';
import { Controller, Inject } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';

import { AuthService } from './auth.service.js';

@Controller()
export class AuthHandler {
  constructor(
    private readonly auth: AuthService,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
  ) {}

  @Handles(CatalogSubjects.authResolve)
  resolve(credential: ResolveCredential) {
    return this.auth.resolve(credential);
  }

  @Handles(CatalogSubjects.adminEmails)
  async adminEmails(_request: object, principal: Principal): Promise<{ emails: string[] }> {
    return { emails: await this.auth.adminEmails(principal.organizationId) };
  }

  /** Sign-out, key deletion and membership changes tell every gateway to drop the credentials they made stale. */
  @Handles(CatalogSubjects.authHttp)
  async http(request: AuthHttpRequest): Promise<AuthHttpResponse> {
    const { response, invalidated } = await this.auth.handleHttp(request);
    if (invalidated) publishEvent(this.nats, CatalogSubjects.authInvalidated, invalidated);
    return response;
  }
}
