import { EnumField, OptionalTextField, SlugField } from '../common/field.decorators.js';
import { SKILL_OWNERS, type SkillOwner } from './create-skill.dto.js';

export class UpdateSkillDto {
  @SlugField({ optional: true })
  name?: string;

  @OptionalTextField({ min: 1, max: 1024 })
  description?: string;

  @OptionalTextField({ min: 1 })
  instructions?: string;

  @EnumField(SKILL_OWNERS, { optional: true })
  owner?: SkillOwner;
}
