import { DomainException } from '#common';
import type { ApiKeyDto, CreatedApiKeyDto, DeletedDto, Principal } from '#contracts';
import { Inject, Injectable } from '@nestjs/common';

import type { Auth } from '../auth/auth.factory.js';
import { AuthRepository } from '../auth/auth.repository.js';
import { AUTH } from '../auth/auth.service.js';
import type { ApiKeyRecord } from './api-key.mapper.js';
import { ApiKeyRepository } from './api-key.repository.js';

function toApiKeyDto(key: ApiKeyRecord): ApiKeyDto {
  return {
    id: key.id,
    name: key.name,
    start: key.start,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt ? key.lastUsedAt.toISOString() : null,
  };
}

/**
 * Organization keys for the console's API keys page. The contract has owners and admins make keys
 * there; a member, and a key (which acts as admin but is no person), are refused.
 */
@Injectable()
export class ApiKeysService {
  constructor(
    @Inject(AUTH) private readonly auth: Auth,
    private readonly keys: ApiKeyRepository,
    private readonly accounts: AuthRepository,
  ) {}

  async list(principal: Principal): Promise<{ data: ApiKeyDto[] }> {
    this.checkManager(principal);
    return { data: (await this.keys.list(principal.organizationId)).map(toApiKeyDto) };
  }

  async create(principal: Principal, name: string): Promise<CreatedApiKeyDto> {
    const userId = this.checkManager(principal);
    // better-auth's default access control lets only owners hold organization keys; the contract lets
    // admins make them too, so an admin's key is made on behalf of the organization's first owner, as
    // the admin CLI's are. The check of who may is the one above.
    const owner =
      principal.role === 'owner' ? userId : await this.accounts.firstOwner(principal.organizationId);
    if (!owner) throw new Error(`organization ${principal.organizationId} has no owner`);
    const created = await this.auth.api.createApiKey({
      body: { organizationId: principal.organizationId, userId: owner, name },
    });
    const stored = await this.keys.get(principal.organizationId, created.id);
    if (!stored) throw new Error(`better-auth made key ${created.id} but it is not stored`);
    await this.keys.recordCreated(principal, stored);
    return { ...toApiKeyDto(stored), key: created.key };
  }

  async delete(principal: Principal, id: string): Promise<DeletedDto> {
    this.checkManager(principal);
    if (!(await this.keys.delete(principal.organizationId, id, principal)))
      throw new DomainException('not_found', `No API key with id ${id}.`);
    return { deleted: true };
  }

  private checkManager(principal: Principal): string {
    if (principal.userId === null || (principal.role !== 'owner' && principal.role !== 'admin'))
      throw new DomainException(
        'forbidden',
        "Only the organization's owners and admins manage its API keys.",
      );
    return principal.userId;
  }
}
