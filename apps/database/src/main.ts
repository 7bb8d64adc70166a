import 'reflect-metadata';

import database from './database.app.js';

await database.start({ standalone: true });
