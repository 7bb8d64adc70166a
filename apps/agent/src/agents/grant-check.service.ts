import { DomainException, type ValidationIssue } from '#common';
import {
  type AppGrantDto,
  CatalogSubjects,
  DatabaseSubjects,
  EventsSubjects,
  hasAction,
  parseActionRef,
  type Principal,
} from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

export interface Grants {
  apps: AppGrantDto[];
  skills: string[];
  databases: string[];
  databaseWrites: string[];
}

/**
 * Checks an agent's grants against their owners: connections with events, skills with catalog,
 * databases with the database service. Every problem is one issue naming its field, and the answer
 * is one 400 `invalid_request` with all of them.
 */
@Injectable()
export class GrantCheck {
  constructor(private readonly rpc: RpcClient) {}

  async assertValid(principal: Principal, grants: Grants): Promise<void> {
    const mcpConnectionIds = grants.apps
      .filter((grant) => grant.integrationId === 'mcp')
      .map((grant) => grant.connectionId);
    const [connections, mcpServers, skills, databases] = await Promise.all([
      grants.apps.length === 0
        ? []
        : this.rpc
            .request(EventsSubjects.connectionsSummary, principal, {})
            .then((reply) => reply.connections),
      mcpConnectionIds.length === 0
        ? []
        : this.rpc
            .request(EventsSubjects.mcpTools, principal, { connectionIds: mcpConnectionIds })
            .then((reply) => reply.servers),
      this.existing(grants.skills, (ids) =>
        this.rpc.request(CatalogSubjects.skillsExisting, principal, { ids }),
      ),
      this.existing(grants.databases, (ids) =>
        this.rpc.request(DatabaseSubjects.existing, principal, { ids }),
      ),
    ]);
    const issues: ValidationIssue[] = [];
    const granted = new Set<string>();
    grants.apps.forEach((grant, index) => {
      const at = `apps.${index}`;
      const connection = connections.find((candidate) => candidate.id === grant.connectionId);
      if (!connection) {
        issues.push({
          path: `${at}.connectionId`,
          message: `no connection ${grant.connectionId} in this organization`,
        });
        return;
      }
      if (granted.has(connection.id)) {
        issues.push({
          path: `${at}.connectionId`,
          message: `the connection ${connection.id} is granted twice`,
        });
      }
      granted.add(connection.id);
      if (grant.integrationId !== connection.integrationId) {
        issues.push({
          path: `${at}.integrationId`,
          message: `the connection ${connection.id} is a ${connection.integrationId} connection`,
        });
        return;
      }
      const serverTools =
        connection.integrationId === 'mcp'
          ? new Set(
              mcpServers
                .find((server) => server.connectionId === connection.id)
                ?.tools.map((tool) => tool.name) ?? [],
            )
          : null;
      grant.actions.forEach((action, actionIndex) => {
        const path = `${at}.actions.${actionIndex}`;
        const ref = parseActionRef(action);
        if (serverTools) {
          // What the server listed last: a tool it added since needs a refresh of the list first.
          if (ref?.provider !== 'mcp' || !serverTools.has(ref.action)) {
            issues.push({
              path,
              message:
                `${action} is not a tool the MCP server of ${connection.id} listed (mcp__<tool>; ` +
                'refresh its list with POST /app/connections/{id}/refresh-tools)',
            });
          }
          return;
        }
        if (!ref || ref.provider !== connection.integrationId || !hasAction(ref.provider, ref.action)) {
          issues.push({
            path,
            message: `${action} is not an action of ${connection.integrationId} (<provider>__<action>)`,
          });
        }
      });
      grant.approvals.forEach((approval, approvalIndex) => {
        if (!grant.actions.includes(approval)) {
          issues.push({
            path: `${at}.approvals.${approvalIndex}`,
            message: `${approval} must be one of the granted actions`,
          });
        }
      });
    });
    grants.skills.forEach((id, index) => {
      if (!skills.has(id)) issues.push({ path: `skills.${index}`, message: `no organization skill ${id}` });
    });
    grants.databases.forEach((id, index) => {
      if (!databases.has(id)) issues.push({ path: `databases.${index}`, message: `no database ${id}` });
    });
    grants.databaseWrites.forEach((id, index) => {
      if (!grants.databases.includes(id)) {
        issues.push({
          path: `databaseWrites.${index}`,
          message: `${id} must be one of the granted databases`,
        });
      }
    });
    if (issues.length > 0) {
      throw DomainException.invalidRequest(issues, "The agent's grants are not valid (see details.issues).");
    }
  }

  private async existing(
    ids: string[],
    ask: (ids: string[]) => Promise<{ ids: string[] }>,
  ): Promise<Set<string>> {
    return ids.length === 0 ? new Set() : new Set((await ask([...new Set(ids)])).ids);
  }
}
