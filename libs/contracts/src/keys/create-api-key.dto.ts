import { TextField } from '../common/field.decorators.js';

export class CreateApiKeyDto {
  /** What the key is for, to recognize it in the list. */
  @TextField({ min: 1, max: 100 })
  name!: string;
}
