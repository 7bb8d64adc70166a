import 'reflect-metadata';

import { getMetadataStorage, IsInt, IsString, Max, MaxLength, validateSync } from 'class-validator';

import { memoizeValidationMetadata } from './validation-metadata.js';

class Named {
  @IsString()
  @MaxLength(5)
  name!: string;
}

class Counted extends Named {
  @IsInt()
  @Max(10, { groups: ['strict'] })
  count!: number;
}

const failuresOf = (value: object, groups?: string[]) =>
  validateSync(value, { groups })
    .flatMap((error) => Object.keys(error.constraints ?? {}))
    .sort();

const counted = (name: unknown, count: unknown) => Object.assign(new Counted(), { name, count });

describe('memoizeValidationMetadata', () => {
  it('validates as before, inherited rules and groups included, and looks each class up once', () => {
    const before = [
      failuresOf(counted('ok', 3)),
      failuresOf(counted('far too long', 'x')),
      failuresOf(counted('ok', 30), ['strict']),
      failuresOf(counted('ok', 30)),
    ];
    memoizeValidationMetadata();
    memoizeValidationMetadata();
    const storage = getMetadataStorage();
    const after = [
      failuresOf(counted('ok', 3)),
      failuresOf(counted('far too long', 'x')),
      failuresOf(counted('ok', 30), ['strict']),
      failuresOf(counted('ok', 30)),
    ];
    expect(after).toEqual(before);
    // class-validator applies a rule of a group when no groups are asked for, unless strictGroups.
    expect(after).toEqual([[], ['isInt', 'max', 'maxLength'], ['max'], ['max']]);
    // Answered from memory: validating again reads the same arrays.
    expect(storage.getTargetValidationMetadatas(Counted, '', false, false)).toBe(
      storage.getTargetValidationMetadatas(Counted, '', false, false),
    );
  });

  it('knows the rules of a class loaded after it was turned on', () => {
    memoizeValidationMetadata();
    class Later extends Named {
      @IsInt()
      size!: number;
    }
    expect(failuresOf(Object.assign(new Later(), { name: 'toolong', size: 1.5 }))).toEqual([
      'isInt',
      'maxLength',
    ]);
  });
});
