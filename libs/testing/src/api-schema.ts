/**
 * The types of `/api/v1` as the gateway's OpenAPI document describes them, for the tests' client.
 *
 * Why a type-only import of the console's file rather than a second generated copy: the file is
 * written from the document by `apps/console/build.mjs` on every `npm run build` and committed, so a
 * change to the API shows up in the tests' types in the same diff as in the console's, and there is
 * one generator and one file to keep current. The import crosses from libs/testing into the console
 * project, which `@nx/enforce-module-boundaries` forbids in general; eslint.config.mjs allows this one
 * import, from this one file, and `import type` keeps it out of every built and run module (swc
 * erases it), so nothing of the browser app is loaded by a test.
 */
import type { components, paths } from '../../../apps/console/src/api/schema.gen.js';

export type { components, paths };

/** The document's schemas by name: `Schemas['WorkflowRunDto']`. */
export type Schemas = components['schemas'];

export type ErrorBody = Schemas['ErrorDto'];
export type WorkflowRun = Schemas['WorkflowRunDto'];
export type RunStep = Schemas['RunStepDto'];
export type RunStatus = WorkflowRun['status'];

/**
 * Request fields the document gives a default, which a client may leave out. openapi-typescript
 * types a field with a default as required (`defaultNonNullable`), sparing inline request bodies but
 * not the named schemas ours use, so the generated types would have every request send them; tests
 * leave them out on purpose (a run without `draft` runs the live version). openapi.e2e-spec.ts checks
 * this list against the document, so a new default fails there rather than here.
 */
export const REQUEST_FIELDS_WITH_DEFAULTS = ['draft', 'timeZone', 'params', 'rollback'] as const;
type Defaulted = (typeof REQUEST_FIELDS_WITH_DEFAULTS)[number];

/** `T` with every field of `REQUEST_FIELDS_WITH_DEFAULTS`, at any depth, optional. */
export type WithoutDefaults<T> = T extends readonly (infer Item)[]
  ? WithoutDefaults<Item>[]
  : T extends object
    ? { [K in keyof T as K extends Defaulted ? never : K]: WithoutDefaults<T[K]> } & {
        [K in keyof T as K extends Defaulted ? K : never]?: WithoutDefaults<T[K]>;
      }
    : T;

type RelaxedOperation<Operation> = Operation extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Omit<Operation, 'requestBody'> &
      (undefined extends Operation['requestBody']
        ? { requestBody?: { content: { 'application/json': WithoutDefaults<Body> } } }
        : { requestBody: { content: { 'application/json': WithoutDefaults<Body> } } })
  : Operation;

/** `paths` with the request fields that have defaults optional, as the API takes them. */
export type ApiPaths = {
  [Path in keyof paths]: { [Method in keyof paths[Path]]: RelaxedOperation<paths[Path][Method]> };
};
