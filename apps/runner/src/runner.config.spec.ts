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
});
