// Renders every overlay of deploy/ and checks it: `npm run deploy:check` (after `npm run build`).
// Needs `kubectl` (its built-in kustomize). Exits 1 with one line per problem.
import { OVERLAYS, renderOverlay, ruleProblems, schemaProblems } from './manifests.js';

let failed = false;
for (const overlay of OVERLAYS) {
  const objects = renderOverlay(overlay);
  const problems = [
    ...schemaProblems(objects),
    // Production's Secrets are made by the operator (deploy/README.md).
    ...ruleProblems(
      objects,
      overlay === 'production'
        ? { externalSecrets: ['nats-credentials', 'flowmesh-secrets'], natsNodes: 3 }
        : {},
    ),
  ];
  failed ||= problems.length > 0;
  console.log(
    `${overlay}: ${objects.length} objects, ${problems.length === 0 ? 'no problems' : `${problems.length} problems`}`,
  );
  for (const problem of problems) console.log(`  ${problem}`);
}
process.exitCode = failed ? 1 : 0;
