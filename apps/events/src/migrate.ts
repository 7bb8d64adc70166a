import 'reflect-metadata';

import { createLogger, loadConfig } from '#common';
import { migrate } from '#persistence';

import { EventsConfig } from './events.config.js';
import { eventsDataSource } from './events.data-source.js';

const config = loadConfig(EventsConfig);
const logger = createLogger('events');
const applied = await migrate(eventsDataSource(config.DATABASE_URL));
logger.info({ applied }, 'events migrations are up to date');
