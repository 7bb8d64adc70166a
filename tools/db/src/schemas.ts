/**
 * The Postgres schemas whose table types `npm run db:types` writes, one file per owning service.
 *
 * `columns` gives a column a narrower TypeScript type than its Postgres type says
 * (`schema.table.column` → type), with the types it names imported from `imports`: a status column
 * its union of statuses, a JSON column what the service writes there
 * (`ColumnType<Diagram, string, string>`: read as a `Diagram`, written as its JSON text). Add a line
 * here when a migration adds such a column.
 */
export interface SchemaTypes {
  /** The service whose `migrate()` creates these schemas (`apps/<service>/src/<service>.app.ts`). */
  service: string;
  /** The schemas to describe: the service's own, and for the catalog, better-auth's. */
  schemas: string[];
  /** The generated file, from the repository root. */
  outFile: string;
  columns?: Record<string, string>;
  /** Type name → module, as kysely-codegen's `customImports` spells them (`#` names an export). */
  imports?: Record<string, string>;
}

export const SCHEMA_TYPES: SchemaTypes[] = [
  {
    service: 'catalog',
    schemas: ['catalog', 'auth'],
    outFile: 'apps/catalog/src/catalog.tables.ts',
    // Calendar days, written as `YYYY-MM-DD` text: a JS Date would be sent in the process's time zone
    // and could land on the day before. pg still reads a date as a Date.
    columns: {
      'catalog.run_usage.period': 'ColumnType<Date, string, string>',
      'catalog.run_days.day': 'ColumnType<Date, string, string>',
      'catalog.retention_settings.scope': "'plan' | 'organization'",
      'catalog.retention_settings.kind': 'RetentionKind',
    },
    imports: { RetentionKind: '#contracts' },
  },
  {
    service: 'workflow',
    schemas: ['workflow'],
    outFile: 'apps/workflow/src/workflow.tables.ts',
    columns: {
      'workflow.workflows.diagram': 'ColumnType<Diagram, string, string>',
      'workflow.versions.diagram': 'ColumnType<Diagram, string, string>',
    },
    imports: { Diagram: '#contracts' },
  },
  {
    service: 'runner',
    schemas: ['runner'],
    outFile: 'apps/runner/src/runner.tables.ts',
    columns: {
      'runner.runs.status': 'StoredRunStatus',
      'runner.runs.rollback_end': "Extract<StoredRunStatus, 'errored' | 'terminated'> | null",
      'runner.runs.trigger': 'RunTrigger',
      'runner.runs.principal': 'ColumnType<Principal, string, string>',
      'runner.runs.diagram': 'ColumnType<Diagram, string, string>',
      'runner.runs.error_workflow': 'ColumnType<ErrorWorkflowOutcome, string, string> | null',
      'runner.runs.held_by': 'HeldBy | null',
      'runner.run_steps.status': 'StepStatus',
      'runner.run_steps.output': 'ColumnType<Record<string, string>, string, string> | null',
      'runner.run_steps.state': 'ColumnType<unknown, string | null, string | null>',
      'runner.operations.action': 'OperationAction',
      'runner.operations.status': 'OperationStatus',
      'runner.operations.principal': 'ColumnType<Principal, string, string>',
      'runner.operations.params': 'ColumnType<OperationParams, string, string>',
      'runner.operation_targets.state': 'Generated<TargetState>',
      'runner.retention_progress.kind': 'RetentionKind',
      'runner.retention_pending.kind': 'RetentionKind',
    },
    imports: {
      StoredRunStatus: './engine/run-state.js',
      HeldBy: './start/run-flow.js',
      OperationParams: './operations/operation.record.js',
      TargetState: './operations/operation.record.js',
      OperationAction: '#contracts',
      OperationStatus: '#contracts',
      RunTrigger: '#contracts',
      Principal: '#contracts',
      Diagram: '#contracts',
      ErrorWorkflowOutcome: '#contracts',
      StepStatus: '#contracts',
      RetentionKind: '#contracts',
    },
  },
  {
    service: 'events',
    schemas: ['events'],
    outFile: 'apps/events/src/events.tables.ts',
    columns: {
      'events.connections.integration_id': 'IntegrationId',
      'events.connections.health': 'Generated<ConnectionHealth>',
      'events.event_outcomes.outcome': 'EventOutcome | null',
      'events.trigger_bindings.status': 'SubscriptionStatus',
      'events.trigger_bindings.filter': 'ColumnType<EventFilter, string, string> | null',
      'events.notification_deliveries.run_status': 'NotifiedRunStatus',
      'events.notification_deliveries.status': 'Generated<NotificationDeliveryStatus>',
      'events.notification_deliveries.outcomes':
        'Generated<ColumnType<NotificationAttemptDto[], string, string>>',
      'events.mcp_tool_lists.tools': 'ColumnType<McpServerToolDto[], string, string>',
      'events.mcp_tool_lists.ignored': 'Generated<ColumnType<McpIgnoredToolDto[], string, string>>',
    },
    imports: {
      IntegrationId: '#contracts',
      McpIgnoredToolDto: '#contracts',
      McpServerToolDto: '#contracts',
      NotificationAttemptDto: '#contracts',
      NotificationDeliveryStatus: '#contracts',
      NotifiedRunStatus: '#contracts',
      ConnectionHealth: '#contracts',
      EventOutcome: '#contracts',
      SubscriptionStatus: '#contracts',
      EventFilter: './subscriptions/event-filter.js',
    },
  },
  {
    service: 'agent',
    schemas: ['agent'],
    outFile: 'apps/agent/src/agent.tables.ts',
    columns: {
      'agent.agents.provider': 'AgentProvider',
      'agent.agents.thinking_level': 'ThinkingLevel',
      'agent.agents.apps': 'Generated<ColumnType<AppGrant[], string, string>>',
      'agent.approvals.status': 'Generated<ApprovalStatus>',
      'agent.approvals.input': 'ColumnType<unknown, string, string>',
      'agent.approvals.result': 'ColumnType<unknown, string | null, string | null>',
      'agent.messages.role': 'MessageRole',
      'agent.messages.content': 'ColumnType<unknown, string, string>',
      'agent.messages.usage': 'ColumnType<ModelCallUsage | null, string | null, string | null>',
      'agent.approvals.kind': 'Generated<ApprovalKind>',
      'agent.model_calls.provider': 'AgentProvider',
    },
    imports: {
      AgentProvider: '#contracts',
      ModelCallUsage: '#contracts',
      ApprovalKind: './approvals/approval.mapper.js',
      ThinkingLevel: '#contracts',
      ApprovalStatus: '#contracts',
      AppGrant: './agents/agent.mapper.js',
      MessageRole: './threads/thread.mapper.js',
    },
  },
  {
    service: 'database',
    schemas: ['database'],
    outFile: 'apps/database/src/database.tables.ts',
    columns: { 'database.shards.state': 'Generated<ShardState>' },
    imports: { ShardState: './shards/shard-assignment.util.js' },
  },
];
