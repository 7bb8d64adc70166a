import 'reflect-metadata';

import { loadConfig } from '#common';
import { migrate } from '#persistence';

import { WorkflowConfig } from './workflow.config.js';
import { workflowDataSource } from './workflow.database.js';
import { logger } from './workflow.logger.js';

const config = loadConfig(WorkflowConfig);
const applied = await migrate(workflowDataSource(config.DATABASE_URL));
logger.info({ applied }, 'workflow migrations are up to date');
