import type { Page } from '#common';
import type { ConnectionHealth, ConnectionSummary, IntegrationId } from '#contracts';
import { paginate, type PageRequest } from '#persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

import { ConnectionEntity } from './connection.entity.js';

export interface NewConnection {
  id: string;
  organizationId: string;
  integrationId: IntegrationId;
  name: string;
  credentials: Buffer;
}

/** A connection row with its sealed credentials: for this service's own use only. */
export type SealedConnection = ConnectionEntity;

@Injectable()
export class ConnectionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get repo() {
    return this.dataSource.getRepository(ConnectionEntity);
  }

  async insert(connection: NewConnection): Promise<ConnectionEntity> {
    await this.repo.insert({ ...connection, health: 'healthy' });
    return this.repo.findOneByOrFail({ id: connection.id });
  }

  /** With their sealed credentials: what members may read of them is opened by the service. */
  list(organizationId: string, page: PageRequest): Promise<Page<SealedConnection>> {
    const query = this.repo
      .createQueryBuilder('connection')
      .addSelect('connection.credentials')
      .where('connection.organization_id = :organizationId', { organizationId });
    return paginate(query, page);
  }

  async summaries(organizationId: string): Promise<ConnectionSummary[]> {
    const rows: Array<{ id: string; integration_id: string }> = await this.dataSource.query(
      `SELECT id, integration_id FROM events.connections WHERE organization_id = $1 ORDER BY id`,
      [organizationId],
    );
    return rows.map((row) => ({ id: row.id, integrationId: row.integration_id }));
  }

  count(organizationId: string): Promise<number> {
    return this.repo.countBy({ organizationId });
  }

  /** With its credentials, whichever organization it belongs to (webhook ingress knows only the id). */
  findSealed(id: string): Promise<SealedConnection | null> {
    return this.repo
      .createQueryBuilder('connection')
      .addSelect('connection.credentials')
      .where('connection.id = :id', { id })
      .getOne();
  }

  /**
   * Deletes the connection, and breaks the live subscriptions of its triggers in the same
   * transaction: from then on they report `dead`.
   */
  async delete(organizationId: string, id: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const deleted: [unknown[], number] = await manager.query(
        `DELETE FROM events.connections WHERE organization_id = $1 AND id = $2`,
        [organizationId, id],
      );
      if (deleted[1] === 0) return false;
      await manager.query(
        `UPDATE events.trigger_bindings
            SET status = 'error', error = 'The connection was deleted.', updated_at = now()
          WHERE connection_id = $1 AND status = 'active'`,
        [id],
      );
      return true;
    });
  }

  /** Replaces the sealed credentials of the organization's connection; null when there is none. */
  async setCredentials(
    organizationId: string,
    id: string,
    credentials: Buffer,
  ): Promise<SealedConnection | null> {
    const { affected } = await this.repo.update({ organizationId, id }, { credentials });
    return affected ? this.findSealed(id) : null;
  }

  async setHealth(id: string, health: ConnectionHealth): Promise<void> {
    await this.dataSource.query(
      `UPDATE events.connections SET health = $2, updated_at = now() WHERE id = $1 AND health <> $2`,
      [id, health],
    );
  }
}
