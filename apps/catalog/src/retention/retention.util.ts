import { type RetentionDays, type RetentionKind, type RetentionOverrides } from '#contracts';

/** A scope's settings by kind: days, null (an explicit keep), or absent (not set). */
export type ScopeSettings = Partial<Record<RetentionKind, number | null>>;

/**
 * What applies to an organization: its own setting where it has one (an explicit keep included, so
 * an organization can keep what its plan trims), else its plan's, else keep. The repository's
 * `organizationsToTrim` resolves the same way in SQL; its spec holds the two together.
 */
export function effectiveDays(
  plan: ScopeSettings,
  organization: ScopeSettings,
  kind: RetentionKind,
): RetentionDays {
  const own = organization[kind];
  return own !== undefined ? own : (plan[kind] ?? null);
}

/** An organization's own settings as the operator reads them: `keep` for an explicit keep. */
export function overridesOf(organization: ScopeSettings): RetentionOverrides {
  const shown = (days: number | null | undefined) => (days === null ? 'keep' : days);
  return {
    ...(organization.step_payload === undefined ? {} : { stepPayloadDays: shown(organization.step_payload) }),
    ...(organization.diagram === undefined ? {} : { diagramDays: shown(organization.diagram) }),
  };
}
