import { type SkillRecord, skillUpdate } from './skill.mapper.js';

describe('skillUpdate', () => {
  const at = new Date('2026-11-27T10:00:00.000Z');
  const skill: SkillRecord = {
    id: 's-1',
    organizationId: 'org-a',
    userId: 'user-1',
    name: 'Tone',
    description: 'How we write',
    instructions: 'Be brief.',
    createdAt: at,
    updatedAt: at,
  };

  it('writes only the columns a change changes, under their column names', () => {
    expect(skillUpdate(skill, { userId: null, name: 'Tone', instructions: 'Be kind.' })).toEqual({
      user_id: null,
      instructions: 'Be kind.',
    });
    expect(skillUpdate(skill, { description: 'How we write' })).toEqual({});
  });
});
