import { NullableTextField, TextField } from '../common/field.decorators.js';

export class CreateProjectDto {
  @TextField({ min: 1, max: 100, example: 'Sales ops' })
  name!: string;

  @NullableTextField({ max: 500 })
  description?: string | null;
}
