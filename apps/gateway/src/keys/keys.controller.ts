import { CatalogSubjects, CreateApiKeyDto, type Principal } from '#contracts';
import { RpcClient } from '#nats';
import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { SessionOnly } from '../auth/session-only.decorator.js';

/**
 * The console's API keys page: owners and admins, signed in, list, create and revoke the
 * organization's keys (the contract: "an owner or admin creates keys on the API keys page of the
 * app"). Browser-only, so not in the reference; a key is refused, a member is forbidden.
 */
@ApiExcludeController()
@SessionOnly()
@Controller('app/keys')
export class KeysController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  list(@CurrentPrincipal() principal: Principal) {
    return this.rpc.request(CatalogSubjects.keysList, principal, {});
  }

  @Post()
  @HttpCode(201)
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateApiKeyDto) {
    return this.rpc.request(CatalogSubjects.keysCreate, principal, body);
  }

  @Delete(':id')
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(CatalogSubjects.keysDelete, principal, { id });
  }
}
