import type { EntityManager } from 'typeorm';

/** A unit of work the repositories share; services hand it on without looking inside. */
export type Transaction = EntityManager;
