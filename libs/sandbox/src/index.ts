export * from './code-worker-pool.js';
export {
  codeSyntaxProblem,
  type SandboxFailure,
  type SandboxFailureKind,
  type SandboxJob,
  type SandboxLanguage,
  type SandboxOutcome,
  type SyntaxProblem,
} from './sandbox.js';
