import type { Kysely } from 'kysely';

import type { DB } from './workflow.tables.js';

/** A unit of work the repositories share; services hand it on without looking inside. */
export type Transaction = Kysely<DB>;
