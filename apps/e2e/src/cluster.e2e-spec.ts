import { type ClusterProofReport, LocalCluster, proveCluster } from '#testing';

/**
 * The short version of issue 15's cluster proof (`tools/cluster`, figures in docs/reliability.md):
 * a 3-node authenticated NATS JetStream cluster with streams on every node, two gateways, two catalogs,
 * two workflow services and three runners, as separate processes. Runs flow through both gateways and
 * schedules come due while one runner and one NATS node are SIGKILLed and brought back; then every
 * accepted run must have completed with its action called and no finished step run again, every due
 * time must have fired once, and the two gateways together must admit no more than the rate limit.
 * The lease is short so the killed runner's runs are taken over in seconds, not the default 30.
 */
describe('a cluster on one machine', () => {
  let cluster: LocalCluster;
  let report: ClusterProofReport;

  beforeAll(async () => {
    cluster = await LocalCluster.start({
      env: { ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true', RUNNER_LEASE_MS: '5000', DATABASE_POOL_SIZE: '3' },
    });
    report = await proveCluster(cluster, {
      seconds: 24,
      runsPerSecond: 4,
      scheduledWorkflows: 3,
      log: (line) => process.stderr.write(`${new Date().toISOString()} ${line}\n`),
    });
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('completes every accepted run once while a runner and a NATS node die and come back', () => {
    const { runs } = report;
    expect(runs.accepted).toBeGreaterThan(60);
    expect({
      abandoned: runs.abandoned,
      lost: runs.lost,
      notComplete: runs.notComplete,
      doneStepsExecutedTwice: runs.doneStepsExecutedTwice,
      actionsMissing: runs.actionsMissing,
    }).toEqual({ abandoned: 0, lost: 0, notComplete: 0, doneStepsExecutedTwice: 0, actionsMissing: 0 });
    expect(runs.completionMs.during.runs).toBeGreaterThan(0);
  });

  it('fires each schedule once per due time, the outage included', () => {
    expect(report.schedules.dueTimes).toBeGreaterThan(3);
    expect(report.schedules).toMatchObject({
      fired: report.schedules.dueTimes,
      missed: 0,
      unexpected: 0,
    });
  });

  it('holds the rate limit across both gateways', () => {
    const { limit, sent, allowed, bothGatewaysRefuseAfter } = report.rateLimit;
    // Either gateway alone would have let all of them through.
    expect(sent).toBeLessThanOrEqual(2 * limit);
    expect(allowed).toBeLessThanOrEqual(limit);
    expect(allowed).toBeGreaterThanOrEqual(limit * 0.98);
    expect(bothGatewaysRefuseAfter).toBe(true);
  });
});
