// Every DuckDB call (a query, each fetched chunk, opening a file) runs on libuv's thread pool, whose
// default of 4 threads would queue a fifth concurrent batch behind the other four. Evaluated before
// anything that uses the pool; an operator's own UV_THREADPOOL_SIZE wins.
process.env.UV_THREADPOOL_SIZE ??= '16';
