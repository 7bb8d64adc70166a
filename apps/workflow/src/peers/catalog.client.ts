import { CatalogSubjects, type Principal } from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

/** Projects belong to catalog; this service only asks whether one exists for the caller. */
@Injectable()
export class CatalogClient {
  constructor(private readonly rpc: RpcClient) {}

  /** Throws project_not_found for a project that is missing or another organization's. */
  async assertProjectExists(principal: Principal, projectId: string): Promise<void> {
    await this.rpc.request(CatalogSubjects.projectsGet, principal, { id: projectId });
  }
}
