import { useQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { useState } from 'react';

import { ApprovalCard } from '../../approvals/approval-card';
import { loadPending } from '../../approvals/pending';
import { PageHeader, QueryView } from '../../components/ui';

export const Route = createFileRoute('/_signed-in/approvals')({ component: ApprovalsPage });

function ApprovalsPage() {
  const query = useQuery({ queryKey: ['approvals'], queryFn: loadPending, refetchInterval: 15_000 });
  // A decided call leaves the list; what was decided stays said here.
  const [decided, setDecided] = useState<string | null>(null);
  return (
    <>
      <PageHeader title="Approvals" />
      <p className="muted">Agent actions marked ask-first wait here. Any member may decide.</p>
      {decided ? (
        <div className="notice success" role="status">
          {decided}
        </div>
      ) : null}
      <QueryView query={query} isEmpty={(list) => list.length === 0} empty="Nothing waits for a decision.">
        {(list) => (
          <>
            {list.map((pending) => (
              <ApprovalCard key={`${pending.runId}-${pending.id}`} pending={pending} onDecided={setDecided} />
            ))}
          </>
        )}
      </QueryView>
    </>
  );
}
