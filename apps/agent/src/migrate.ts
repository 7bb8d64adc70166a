import 'reflect-metadata';

import { createLogger, loadConfig } from '#common';
import { migrate } from '#persistence';

import { AgentConfig } from './agent.config.js';
import { agentDataSource } from './agent.data-source.js';

const config = loadConfig(AgentConfig);
const logger = createLogger('agent');
const applied = await migrate(agentDataSource(config.DATABASE_URL));
logger.info({ applied }, 'agent migrations are up to date');
