import { ValidateBy, type ValidationOptions } from 'class-validator';

/** An object whose values are all strings, with at most `maxEntries` keys: headers, for one. */
export function IsStringRecord(maxEntries: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStringRecord',
      constraints: [maxEntries],
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.keys(value).length <= maxEntries &&
          Object.values(value).every((entry) => typeof entry === 'string'),
        defaultMessage: () => `$property must be an object of at most ${maxEntries} string values`,
      },
    },
    options,
  );
}
