import { CatalogSubjects, type CreateApiKeyDto, type IdRequest, type Principal } from '#contracts';
import { Handles, NATS_CONNECTION, publishEvent } from '#nats';
import { Controller, Inject } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';

import { ApiKeysService } from './api-keys.service.js';

@Controller()
export class ApiKeysHandler {
  constructor(
    private readonly keys: ApiKeysService,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
  ) {}

  @Handles(CatalogSubjects.keysList)
  list(_request: object, principal: Principal) {
    return this.keys.list(principal);
  }

  @Handles(CatalogSubjects.keysCreate)
  create({ name }: CreateApiKeyDto, principal: Principal) {
    return this.keys.create(principal, name);
  }

  /** A revoked key must stop working at once: every gateway forgets it. */
  @Handles(CatalogSubjects.keysDelete)
  async delete({ id }: IdRequest, principal: Principal) {
    const deleted = await this.keys.delete(principal, id);
    publishEvent(this.nats, CatalogSubjects.authInvalidated, { keyIds: [id] });
    return deleted;
  }
}
