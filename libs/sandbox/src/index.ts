export * from './code-worker-pool.js';
export {
  codeSyntaxProblem,
  runInSandbox,
  type SandboxFailure,
  type SandboxFailureKind,
  type SandboxJob,
  type SandboxLanguage,
  type SandboxOutcome,
  type SyntaxProblem,
} from './sandbox.js';
