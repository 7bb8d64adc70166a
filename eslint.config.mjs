import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/**
 * Tags (see each project.json):
 *   type:app       services and the gateway      type:contracts  DTOs, subjects, message types
 *   type:transport libs/nats                     type:persistence data sources, pagination, ids
 *   type:util      libs/common, libs/sandbox     type:testing    libs/testing (tests only)
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
    // An app's own specs, and persistence's (which libs/testing does not use), may use the test helpers
    // (a scratch database); their code may not.
    files: ['apps/*/src/**/*.spec.ts', 'libs/persistence/src/**/*.spec.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: depConstraints.map((constraint) =>
            ['type:app', 'type:persistence'].includes(constraint.sourceTag)
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
    files: ['libs/testing/**/*.ts', 'apps/e2e/src/**/*.ts'],
    rules: { '@typescript-eslint/no-deprecated': 'error' },
  },
  prettier,
);
