import { OptionalTextField, SlugField } from '../common/field.decorators.js';

export class CreateDatabaseDto {
  @SlugField()
  name!: string;

  /** Defaults to empty. */
  @OptionalTextField({ max: 1024, description: 'Up to 1024 characters; default empty.' })
  description?: string;
}
