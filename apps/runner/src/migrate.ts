import 'reflect-metadata';

import { createLogger, loadConfig } from '#common';
import { migrate } from '#persistence';

import { RunnerConfig } from './runner.config.js';
import { runnerDataSource } from './runner.database.js';

const config = loadConfig(RunnerConfig);
const applied = await migrate(runnerDataSource(config.DATABASE_URL));
createLogger('runner').info({ applied }, 'runner migrations are up to date');
