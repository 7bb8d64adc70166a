const swc = [
  '@swc/jest',
  {
    swcrc: false,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'es6' },
  },
];

const shared = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: {
    '^#(common|contracts|nats|persistence|sandbox|testing)$': '<rootDir>/libs/$1/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
};

/** Unit specs sit beside the code; end-to-end specs boot the real services once per run. */
export default {
  reporters: ['default', '<rootDir>/tools/test/summary-reporter.mjs'],
  testSequencer: '<rootDir>/tools/test/sequencer.mjs',
  // End-to-end tests start processes and wait on real runs; a project-level value is ignored.
  testTimeout: 60_000,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/apps/e2e/'],
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/apps/e2e/src/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/apps/e2e/src/global-setup.ts',
      globalTeardown: '<rootDir>/apps/e2e/src/global-teardown.ts',
    },
  ],
};
