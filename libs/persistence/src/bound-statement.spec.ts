import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';

import { BoundStatement, type Param } from './bound-statement.js';

interface Tables {
  items: { id: string; owner: string; size: number };
}

/** Compiles Postgres statements without a database. */
const db = new Kysely<Tables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

describe('BoundStatement', () => {
  it('numbers each value by its first place, a value used twice keeping its number', () => {
    const statement = new BoundStatement((param: Param<{ owner: string; size: number }>) =>
      db
        .selectFrom('items')
        .select('id')
        .where('owner', '=', param('owner'))
        .where('size', '>', param('size'))
        .where('id', '<>', param('owner')),
    );
    const compiled = statement.bind({ size: 3, owner: 'ann' }).compile();
    expect(compiled.sql).toBe('select "id" from "items" where "owner" = $1 and "size" > $2 and "id" <> $1');
    expect(compiled.parameters).toEqual(['ann', 3]);
    expect(statement.bind({ size: 5, owner: 'bob' }).compile().parameters).toEqual(['bob', 5]);
  });

  it('refuses a statement holding a value of its own, whose number would clash', () => {
    expect(
      () =>
        new BoundStatement((param: Param<{ owner: string }>) =>
          db.selectFrom('items').select('id').where('owner', '=', param('owner')).where('size', '>', 0),
        ),
    ).toThrow('a bound statement takes every value through param()');
  });
});
