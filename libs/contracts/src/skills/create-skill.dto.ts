import { EnumField, SlugField, TextField } from '../common/field.decorators.js';

export const SKILL_OWNERS = ['organization', 'me'] as const;
export type SkillOwner = (typeof SKILL_OWNERS)[number];

export class CreateSkillDto {
  @SlugField()
  name!: string;

  @TextField({ min: 1, max: 1024 })
  description!: string;

  @TextField({ min: 1 })
  instructions!: string;

  /** `me` lists the skill for the creating member alone; with an organization key it is ignored. */
  @EnumField(SKILL_OWNERS, { optional: true, description: 'Default organization.' })
  owner?: SkillOwner;
}
