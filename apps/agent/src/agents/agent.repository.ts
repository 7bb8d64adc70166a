import type { Page } from '#common';
import { isId, newId, paginate, type PageRequest } from '#persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

import { AgentEntity } from './agent.entity.js';

export type AgentFields = Omit<AgentEntity, 'id' | 'organizationId' | 'createdAt' | 'updatedAt'>;

const UNIQUE_VIOLATION = '23505';

export class AgentNameTakenError extends Error {}

@Injectable()
export class AgentRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private repo(manager?: EntityManager) {
    return (manager ?? this.dataSource.manager).getRepository(AgentEntity);
  }

  /** Serializes agent creation per organization, so two creates at the plan limit cannot both pass. */
  lockedFor<T>(organizationId: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agents:${organizationId}`]);
      return work(manager);
    });
  }

  count(organizationId: string, manager?: EntityManager): Promise<number> {
    return this.repo(manager).countBy({ organizationId });
  }

  insert(organizationId: string, fields: AgentFields, manager: EntityManager): Promise<AgentEntity> {
    const repo = this.repo(manager);
    return this.saveUnique(() => repo.save(repo.create({ id: newId(), organizationId, ...fields })));
  }

  find(organizationId: string, id: string): Promise<AgentEntity | null> {
    return this.repo().findOneBy({ organizationId, id });
  }

  /** The ids among `ids` of the organization's agents. */
  async existing(organizationId: string, ids: string[]): Promise<string[]> {
    const wanted = ids.filter(isId);
    if (wanted.length === 0) return [];
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM agent.agents WHERE organization_id = $1 AND id = ANY($2::uuid[])`,
      [organizationId, wanted],
    );
    return rows.map((row) => row.id);
  }

  list(organizationId: string, page: PageRequest): Promise<Page<AgentEntity>> {
    const query = this.repo()
      .createQueryBuilder('agent')
      .where('agent.organization_id = :organizationId', { organizationId });
    return paginate(query, page);
  }

  update(agent: AgentEntity, changes: Partial<AgentFields>): Promise<AgentEntity> {
    return this.saveUnique(() => this.repo().save(Object.assign(agent, changes)));
  }

  async delete(organizationId: string, id: string): Promise<boolean> {
    const result = await this.repo().delete({ organizationId, id });
    return (result.affected ?? 0) > 0;
  }

  private async saveUnique(save: () => Promise<AgentEntity>): Promise<AgentEntity> {
    try {
      return await save();
    } catch (error) {
      if ((error as { driverError?: { code?: string } }).driverError?.code === UNIQUE_VIOLATION) {
        throw new AgentNameTakenError();
      }
      throw error;
    }
  }
}
