import { NullableTextField, OptionalTextField } from '../common/field.decorators.js';

export class UpdateProjectDto {
  @OptionalTextField({ min: 1, max: 100 })
  name?: string;

  @NullableTextField({ max: 500 })
  description?: string | null;
}
