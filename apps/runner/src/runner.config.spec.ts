import { availableParallelism } from 'node:os';

import { loadConfig } from '#common';

import { RunnerConfig } from './runner.config.js';

describe('RunnerConfig', () => {
  it('reads the limits of templates, steps and runs, in bytes, with their defaults', () => {
    expect(loadConfig(RunnerConfig, {}).runLimits).toEqual({
      propertyMaxBytes: 262_144,
      stepInputMaxBytes: 1_048_576,
      stepOutputMaxBytes: 2_097_152,
      runDataMaxBytes: 5_242_880,
    });
    expect(
      loadConfig(RunnerConfig, { TEMPLATE_PROPERTY_MAX_BYTES: '65536', RUN_DATA_MAX_BYTES: '8388608' })
        .runLimits,
    ).toMatchObject({ propertyMaxBytes: 65_536, runDataMaxBytes: 8_388_608 });
  });

  it('refuses a limit larger than the one that holds it, or too small to hold the largest input', () => {
    expect(() => loadConfig(RunnerConfig, { TEMPLATE_PROPERTY_MAX_BYTES: '2097152' })).toThrow(
      'TEMPLATE_PROPERTY_MAX_BYTES must not be more than STEP_INPUT_MAX_BYTES',
    );
    expect(() => loadConfig(RunnerConfig, { RUN_DATA_MAX_BYTES: '1048576' })).toThrow(
      'STEP_OUTPUT_MAX_BYTES must not be more than RUN_DATA_MAX_BYTES',
    );
    expect(() => loadConfig(RunnerConfig, { RUN_DATA_MAX_BYTES: '1000' })).toThrow(
      'RUN_DATA_MAX_BYTES must not be less than 1048576',
    );
  });

  it("caps code steps at 1 s and 32 MiB by default, on half the cores, within the node types' maxima", () => {
    const config = loadConfig(RunnerConfig, {});
    expect(config).toMatchObject({ CODE_TIMEOUT_MS: 1_000, CODE_MEMORY_MB: 32 });
    expect(config.CODE_WORKERS).toBe(Math.max(1, Math.floor(availableParallelism() / 2)));
    expect(loadConfig(RunnerConfig, { CODE_WORKERS: '3' }).CODE_WORKERS).toBe(3);
    expect(() => loadConfig(RunnerConfig, { CODE_TIMEOUT_MS: '30001' })).toThrow('CODE_TIMEOUT_MS');
    expect(() => loadConfig(RunnerConfig, { CODE_MEMORY_MB: '257' })).toThrow('CODE_MEMORY_MB');
  });

  it('trims past retention every 10 minutes in batches of 500 runs by default, and refuses an empty batch', () => {
    expect(loadConfig(RunnerConfig, {})).toMatchObject({
      RETENTION_INTERVAL_MS: 600_000,
      RETENTION_BATCH: 500,
    });
    expect(loadConfig(RunnerConfig, { RETENTION_BATCH: '50' }).RETENTION_BATCH).toBe(50);
    expect(() => loadConfig(RunnerConfig, { RETENTION_BATCH: '0' })).toThrow('RETENTION_BATCH');
    expect(() => loadConfig(RunnerConfig, { RETENTION_INTERVAL_MS: '10' })).toThrow('RETENTION_INTERVAL_MS');
  });
});
