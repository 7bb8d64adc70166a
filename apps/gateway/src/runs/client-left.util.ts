import type { FastifyReply } from 'fastify';

/** Aborted when the client goes away before it was answered, so a wait lets go of the run at once. */
export function clientLeft(reply: FastifyReply): AbortSignal {
  const left = new AbortController();
  reply.raw.once('close', () => left.abort());
  return left.signal;
}
