import { OptionalTextField, SlugField } from '../common/field.decorators.js';

/**
 * The contract gives `description` a default of empty here as on create, so a PATCH that leaves it
 * out sets it to empty; `name` changes only when sent.
 */
export class UpdateDatabaseDto {
  @SlugField({ optional: true })
  name?: string;

  @OptionalTextField({
    max: 1024,
    description: 'Up to 1024 characters; default empty (a PATCH without it clears it).',
  })
  description?: string;
}
