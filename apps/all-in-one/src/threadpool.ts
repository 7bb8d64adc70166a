// The database service runs every DuckDB call on libuv's thread pool, whose default of 4 threads would
// queue a fifth concurrent batch behind the other four; the pool is sized when first used, so this runs
// before anything else. An operator's own UV_THREADPOOL_SIZE wins.
process.env.UV_THREADPOOL_SIZE ??= '16';
