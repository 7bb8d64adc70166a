import type { SandboxOutcome } from './sandbox.js';

/** What a pool worker says to its pool. */
export type WorkerMessage = { type: 'ready' } | { type: 'outcome'; outcome: SandboxOutcome };
