import { useQuery } from '@tanstack/react-query';

import { browserRequest } from '../api/browser-client';

/**
 * A link to the run's trace in the operator's trace viewer (docs/tracing.md): shown when the run has
 * a trace and the gateway names a viewer (`TRACE_VIEWER_URL`), nothing otherwise.
 */
export function TraceLink({ traceId }: { traceId: string | undefined }) {
  const settings = useQuery({
    queryKey: ['console-settings'],
    queryFn: () => browserRequest('GET /app/settings'),
    staleTime: Number.POSITIVE_INFINITY,
    enabled: Boolean(traceId),
  });
  const viewer = settings.data?.traceViewerUrl;
  if (!traceId || !viewer) return null;
  return (
    <>
      {' '}
      ·{' '}
      <a href={viewer.replaceAll('{traceId}', encodeURIComponent(traceId))} target="_blank" rel="noreferrer">
        Trace
      </a>
    </>
  );
}
