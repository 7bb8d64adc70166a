import { Counter, Gauge } from 'prom-client';

/** The requests `OrganizationLanes` holds back (docs/flow-control.md, "Fairness at the edge"). */
const waits = new Counter({
  name: 'flowmesh_gateway_lane_waits_total',
  help: "Requests the gateway held back for their organization's lane while other organizations were served.",
});
const waiting = new Gauge({
  name: 'flowmesh_gateway_lane_waiting',
  help: "Requests the gateway holds back for their organization's lane right now.",
});

export function laneHeld(): void {
  waits.inc();
  waiting.inc();
}

export function lanesEntered(count: number): void {
  if (count > 0) waiting.dec(count);
}
