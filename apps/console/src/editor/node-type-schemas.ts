import { useQuery } from '@tanstack/react-query';

import { browserRequest } from '../api/browser-client';
import type { JsonSchema } from './json-schema';

const SCHEMA_NAMES: Record<string, string> = {
  trigger: 'TriggerNodeProperties',
  agent: 'AgentNodeProperties',
  action: 'ActionNodeProperties',
  condition: 'ConditionNodeProperties',
  database: 'DatabaseNodeProperties',
  delay: 'DelayNodeProperties',
  workflow: 'WorkflowNodeProperties',
  code: 'CodeNodeProperties',
  loop: 'LoopNodeProperties',
};

/**
 * The node-type schemas as the API publishes them in its OpenAPI document (the validator's own), so
 * the form follows the API without a copy in the console.
 */
export function useNodeTypeSchemas() {
  return useQuery({
    queryKey: ['node-type-schemas'],
    queryFn: async () => {
      const document = await browserRequest('GET /docs/openapi.json');
      return Object.fromEntries(
        Object.entries(SCHEMA_NAMES).map(([type, name]) => [type, document.components.schemas[name] ?? {}]),
      ) as Record<string, JsonSchema>;
    },
    staleTime: Infinity,
  });
}
