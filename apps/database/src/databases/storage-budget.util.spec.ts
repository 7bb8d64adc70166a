import { storageBudget } from './storage-budget.util.js';

describe('storageBudget', () => {
  it("is the database's own limit while the organization has room for all of it", () => {
    expect(storageBudget(100, 150, 50)).toEqual({ roomBytes: 100, limit: 100, scope: 'database' });
  });

  it("is what the organization's limit leaves once its other databases hold more", () => {
    expect(storageBudget(100, 150, 90)).toEqual({ roomBytes: 60, limit: 150, scope: 'organization' });
  });

  it('leaves no room, never less, when the other databases already pass the organization limit', () => {
    expect(storageBudget(100, 150, 200)).toEqual({ roomBytes: 0, limit: 150, scope: 'organization' });
  });
});
