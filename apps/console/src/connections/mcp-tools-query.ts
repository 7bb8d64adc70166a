import { queryOptions } from '@tanstack/react-query';

import { browserRequest } from '../api/browser-client';

/**
 * The tools an `mcp` connection keeps. The Connections page's tools view and the agent grant picker
 * share this key, so a refresh on one shows on the other without a second request.
 */
export const mcpToolsQuery = (connectionId: string) =>
  queryOptions({
    queryKey: ['connection-tools', connectionId],
    queryFn: () => browserRequest('GET /app/connections/{id}/tools', { path: { id: connectionId } }),
  });
