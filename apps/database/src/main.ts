import './uv-threadpool.js';
import 'reflect-metadata';

import database from './database.app.js';

await database.start({ standalone: true });
