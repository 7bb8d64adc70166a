/**
 * The whole service as `deploy/` runs it, on one machine (issue 15, item 1): a Postgres of its own, a
 * 3-node authenticated NATS JetStream cluster with streams replicated 3 times, two gateways, two
 * catalogs, two workflow services, three runners and one of each other app, on loopback ports.
 *
 *   npm run build
 *   node dist/tools/cluster/src/main.js start              # runs until Ctrl-C, prints where everything is
 *   node dist/tools/cluster/src/main.js prove [--seconds 120] [--rate 10] [--schedules 20]
 *
 * `prove` runs the item's proof once and prints its report as JSON: runs flow through both gateways,
 * one runner and one NATS node are SIGKILLed at a third of the time and brought back at two thirds,
 * and then it counts lost, stuck and doubly executed runs, schedules fired per due time, and what the
 * shared rate limit let through.
 */
import { parseArgs } from 'node:util';

import { LocalCluster, proveCluster } from '#testing';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '120' },
    rate: { type: 'string', default: '10' },
    schedules: { type: 'string', default: '20' },
  },
});
const command = positionals[0] ?? 'start';
const log = (line: string) => process.stderr.write(`[cluster ${new Date().toISOString()}] ${line}\n`);

async function main(): Promise<void> {
  if (command !== 'start' && command !== 'prove')
    throw new Error(`unknown command ${command}: start | prove`);
  const began = Date.now();
  const cluster = await LocalCluster.start({
    env: {
      // The proof's actions call a ledger on loopback.
      ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    },
  });
  log(`started in ${Date.now() - began} ms`);
  const stop = async () => {
    log('stopping');
    await cluster.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());

  if (command === 'start') {
    const processes = [...cluster.processes.values()].map(({ name, readyUrl, process }) => ({
      name,
      pid: process.child.pid,
      readyUrl,
    }));
    process.stdout.write(
      `${JSON.stringify(
        {
          gateways: cluster.gateways,
          nats: cluster.nats.nodes.map((node) => ({
            url: node.url,
            monitor: node.monitorUrl,
            pid: node.pid,
          })),
          postgres: cluster.postgres.adminUrl,
          env: cluster.env,
          processes,
        },
        null,
        2,
      )}\n`,
    );
    log('running; Ctrl-C stops everything');
    return;
  }
  const report = await proveCluster(cluster, {
    seconds: Number(values.seconds),
    runsPerSecond: Number(values.rate),
    scheduledWorkflows: Number(values.schedules),
    log,
  });
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  await stop();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
