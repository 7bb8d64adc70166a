import {
  type ClusterProofReport,
  LocalCluster,
  proveCluster,
  runChaosTrials,
  ScriptedModel,
  type TrialResult,
} from '#testing';

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
  let model: ScriptedModel;
  let cluster: LocalCluster;
  let report: ClusterProofReport;

  beforeAll(async () => {
    model = await ScriptedModel.start();
    cluster = await LocalCluster.start({
      env: {
        ...model.gatewayEnv,
        ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
        RUNNER_LEASE_MS: '5000',
        DATABASE_POOL_SIZE: '3',
      },
    });
    report = await proveCluster(cluster, {
      seconds: 15,
      runsPerSecond: 4,
      scheduledWorkflows: 3,
      log: (line) => process.stderr.write(`${new Date().toISOString()} ${line}\n`),
    });
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
    await model?.stop();
  });

  it('completes every accepted run once while a runner and a NATS node die and come back', () => {
    const { runs } = report;
    expect(runs.accepted).toBeGreaterThan(40);
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

  /**
   * The short version of the chaos trials (`tools/chaos`): the services a run's steps call (one of the
   * two database replicas), and
   * Postgres, each killed once while runs with every kind of step and webhook events flow.
   */
  it('loses, repeats and strands nothing when a database replica, the events or agent service or Postgres dies', async () => {
    const results: TrialResult[] = await runChaosTrials(cluster, {
      trials: 4,
      loadSeconds: 4,
      runsPerSecond: 4,
      stuckAfterMs: 60_000,
      victims: ['database-1', 'events-0', 'agent-0', 'postgres'],
      log: (line) => process.stderr.write(`${new Date().toISOString()} ${line}\n`),
      // Each victim once, in that order, at the middle of the load.
      random: (() => {
        const draws = [0, 0.5, 0.25, 0.5, 0.5, 0.5, 0.75, 0.5];
        return () => draws.shift() ?? 0.5;
      })(),
    });
    expect(results.map((result) => result.victim)).toEqual(['database-1', 'events-0', 'agent-0', 'postgres']);
    for (const result of results) {
      expect(result.runsAccepted + result.eventsAccepted).toBeGreaterThan(8);
      expect({
        victim: result.victim,
        lost: result.runsLost,
        stuck: result.runsStuck,
        failed: result.failures,
        doneTwice: result.doneStepsExecutedTwice,
        eventsWithoutOutcome: result.eventsWithoutOutcome,
        abandoned: result.abandoned,
      }).toEqual({
        victim: result.victim,
        lost: 0,
        stuck: 0,
        failed: [],
        doneTwice: 0,
        eventsWithoutOutcome: 0,
        abandoned: 0,
      });
    }
  }, 300_000);
});
