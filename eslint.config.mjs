import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/**
 * Tags (see each project.json):
 *   type:app       services and the gateway      type:contracts  DTOs, subjects, message types
 *   type:transport libs/nats                     type:persistence data sources, pagination, ids
 *   type:util      libs/common                   type:testing    libs/testing (tests only)
 *   type:tool      tools/*                       type:e2e        the end-to-end tests
 *   type:launcher  apps/all-in-one: runs several apps in one process, loading each one's
 *                  `<app>.app.js` by path at run time, never importing an app's code
 * A service never imports another service (projects cannot import apps), and the gateway never
 * imports persistence: it holds no data.
 */
const depConstraints = [
  {
    sourceTag: 'type:app',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:transport', 'type:persistence', 'type:util'],
  },
  { sourceTag: 'scope:gateway', notDependOnLibsWithTags: ['type:persistence'] },
  { sourceTag: 'type:launcher', onlyDependOnLibsWithTags: ['type:transport', 'type:util'] },
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:util'] },
  { sourceTag: 'type:persistence', onlyDependOnLibsWithTags: ['type:util'] },
  { sourceTag: 'type:transport', onlyDependOnLibsWithTags: ['type:contracts', 'type:util'] },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:transport', 'type:util'] },
  {
    sourceTag: 'type:tool',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:transport', 'type:util', 'type:testing'],
  },
  // The browser console talks to the API over HTTP only, through the client generated from its document.
  { sourceTag: 'type:console', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:testing', 'type:contracts', 'type:util'] },
];

export default tseslint.config(
  {
    ignores: [
      'apps/console/src/api/schema.gen.ts',
      'apps/console/src/routeTree.gen.ts',
      'dist/**',
      'node_modules/**',
      'data/**',
      '.nx/**',
      'coverage/**',
      'tmp/**',
    ],
  },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: {
        // The console's Vite config runs on Node, outside the console's browser tsconfig.
        projectService: { allowDefaultProject: ['apps/console/vite.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
        emitDecoratorMetadata: true,
        experimentalDecorators: true,
      },
    },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        { enforceBuildableLibDependency: false, allow: [], depConstraints },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-inferrable-types': ['error', { ignoreProperties: true }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // The rules of hooks, and the React Compiler's checks of what a render may do.
    files: ['apps/console/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
  },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'libs/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // An app's own specs may use the test helpers (a scratch database); its code may not.
    files: ['apps/*/src/**/*.spec.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: depConstraints.map((constraint) =>
            constraint.sourceTag === 'type:app'
              ? {
                  ...constraint,
                  onlyDependOnLibsWithTags: [...constraint.onlyDependOnLibsWithTags, 'type:testing'],
                }
              : constraint,
          ),
        },
      ],
    },
  },
  {
    // The tests' client takes the types of /api/v1 from the console's file generated from the OpenAPI
    // document (one generator, one file; why: libs/testing/src/api-schema.ts). This one type-only import
    // may cross into the console project; every other import of libs/testing keeps the constraints.
    files: ['libs/testing/src/api-schema.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: ['../../../apps/console/src/api/schema.gen.js'],
          depConstraints,
        },
      ],
    },
  },
  {
    // The untyped calls `ApiClient` keeps for tools/bench are deprecated: tests use the typed ones.
    files: [
      'libs/testing/**/*.ts',
      'apps/e2e/src/runs.e2e-spec.ts',
      'apps/e2e/src/workflows.e2e-spec.ts',
      'apps/e2e/src/events.e2e-spec.ts',
      'apps/e2e/src/runs-recovery.e2e-spec.ts',
      'apps/e2e/src/step-services-recovery.e2e-spec.ts',
      'apps/e2e/src/events-recovery.e2e-spec.ts',
      'apps/e2e/src/dashboard.e2e-spec.ts',
      'apps/e2e/src/agent-approvals.e2e-spec.ts',
      'apps/e2e/src/agent-steps.e2e-spec.ts',
      'apps/e2e/src/consistency.e2e-spec.ts',
      'apps/e2e/src/live-runs.e2e-spec.ts',
    ],
    rules: { '@typescript-eslint/no-deprecated': 'error' },
  },
  {
    // The e2e specs moved to the typed client after runs.e2e-spec.ts: no untyped calls either.
    files: [
      'apps/e2e/src/projects.e2e-spec.ts',
      'apps/e2e/src/step-services-recovery.e2e-spec.ts',
      'apps/e2e/src/health.e2e-spec.ts',
      'apps/e2e/src/databases-limits.e2e-spec.ts',
      'apps/e2e/src/console-agents.e2e-spec.ts',
      'apps/e2e/src/dashboard.e2e-spec.ts',
      'apps/e2e/src/gateway.e2e-spec.ts',
      'apps/e2e/src/agents.e2e-spec.ts',
      'apps/e2e/src/agent-steps.e2e-spec.ts',
      'apps/e2e/src/runs-recovery.e2e-spec.ts',
      'apps/e2e/src/openapi.e2e-spec.ts',
      'apps/e2e/src/workflows-scheduler.e2e-spec.ts',
      'apps/e2e/src/edge.e2e-spec.ts',
    ],
    rules: { '@typescript-eslint/no-deprecated': 'error' },
  },
  {
    // More specs on the typed client, their own list so each batch of moves merges on its own.
    files: [
      'apps/e2e/src/admin-cli.e2e-spec.ts',
      'apps/e2e/src/all-in-one.e2e-spec.ts',
      'apps/e2e/src/api-fuzz.e2e-spec.ts',
      'apps/e2e/src/cluster.e2e-spec.ts',
      'apps/e2e/src/console-routes.e2e-spec.ts',
      'apps/e2e/src/events-recovery.e2e-spec.ts',
      'apps/e2e/src/identity.e2e-spec.ts',
      'apps/e2e/src/invalid-request.e2e-spec.ts',
      'apps/e2e/src/nats-permissions.e2e-spec.ts',
      'apps/e2e/src/production-settings.e2e-spec.ts',
      'apps/e2e/src/runs-schedule.e2e-spec.ts',
      'apps/e2e/src/skills.e2e-spec.ts',
      'apps/e2e/src/soak.e2e-spec.ts',
    ],
    rules: { '@typescript-eslint/no-deprecated': 'error' },
  },
  {
    // The tenant isolation sweep and the agent chat on the typed client.
    files: ['apps/e2e/src/tenant-isolation.e2e-spec.ts', 'apps/e2e/src/agent-chat.e2e-spec.ts'],
    rules: { '@typescript-eslint/no-deprecated': 'error' },
  },
  prettier,
);
