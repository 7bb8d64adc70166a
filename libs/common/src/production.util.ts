/** A configuration that can say what it lacks to be run in production. */
export interface ProductionChecked {
  /** One sentence per problem, each naming the variable to set. */
  productionProblems(): string[];
}

/**
 * With `NODE_ENV=production`, refuses to start an app whose configuration still holds a development
 * default (a known secret, a public key, an anonymous NATS connection): such a process would run, and
 * anyone who read the source could sign its sessions or read its credentials.
 */
export function refuseUnsafeProduction(
  app: string,
  config: ProductionChecked,
  env: NodeJS.ProcessEnv = process.env,
): void {
  if (env.NODE_ENV !== 'production') return;
  const problems = config.productionProblems();
  if (problems.length === 0) return;
  throw new Error(
    `${app} will not start with NODE_ENV=production and development settings:\n${problems
      .map((problem) => `  - ${problem}`)
      .join('\n')}`,
  );
}

/** Placeholder values of examples and templates, which pass every length check. */
export function looksLikePlaceholder(value: string): boolean {
  return /change[-_ ]?me|example|placeholder|replace[-_ ]?me|development|^(.)\1*$/i.test(value);
}
