import { createFileRoute } from '@tanstack/react-router';

import { AuditLog } from '../../audit/audit-log';
import { managesOrganization, useMember } from '../../auth/session';
import { Empty, PageHeader } from '../../components/ui';

/** The organization's audit log: every change, who made it and from where (docs/audit.md). */
export const Route = createFileRoute('/_signed-in/audit')({ component: AuditPage });

function AuditPage() {
  const member = useMember();
  if (!managesOrganization(member.role)) {
    return (
      <>
        <PageHeader title="Audit log" />
        <Empty>Only the organization&apos;s owners and admins read its audit log.</Empty>
      </>
    );
  }
  return (
    <>
      <PageHeader title="Audit log" />
      <AuditLog />
    </>
  );
}
