import Sequencer from '@jest/test-sequencer';

/**
 * The files that take longest, started first. Jest orders a run by the durations it cached from the
 * previous one; a fresh clone (CI) has none, and Jest then goes by file size, which started the
 * slowest file, the cluster on one machine, last and left it running alone for minutes. With these
 * first, the three workers finish together. Durations from CI on 2026-11-25, slowest first.
 */
const SLOWEST_FIRST = [
  'cluster.e2e-spec.ts',
  'databases-shards.e2e-spec.ts',
  'agent-chat.e2e-spec.ts',
  'console.e2e-spec.ts',
  'consistency.e2e-spec.ts',
  'runs-recovery.e2e-spec.ts',
  'agent-approvals.e2e-spec.ts',
  'console-agents.e2e-spec.ts',
  'step-services-recovery.e2e-spec.ts',
  'events.e2e-spec.ts',
  'soak.e2e-spec.ts',
  'dashboard.e2e-spec.ts',
];

const rank = (path) => {
  const index = SLOWEST_FIRST.findIndex((name) => path.endsWith(`/${name}`));
  return index === -1 ? SLOWEST_FIRST.length : index;
};

export default class SlowestFirst extends Sequencer {
  sort(tests) {
    const known = super.sort(tests);
    // A stable sort: the rest keep Jest's own order (cached durations, else size).
    return [...known].sort((a, b) => rank(a.path) - rank(b.path));
  }
}
