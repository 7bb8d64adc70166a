import { DomainException } from '#common';

import { ERROR_WORKFLOW_RETRY_FOR_MS, refusalOf } from './error-workflows.service.js';

describe('refusalOf', () => {
  const ended = new Date('2026-11-30T10:00:00.000Z');
  const soon = new Date(ended.getTime() + 1_000);
  const late = new Date(ended.getTime() + ERROR_WORKFLOW_RETRY_FOR_MS);

  it('records what the start answered about the error workflow itself, at once', () => {
    for (const error of [
      new DomainException('not_published', 'The workflow has no published version.'),
      new DomainException('workflow_paused', 'The workflow is paused: app events start no runs.'),
      DomainException.notFound('workflow', 'w-1'),
      DomainException.planLimit('runs', 100),
    ]) {
      expect(refusalOf(error, ended, soon)).toEqual({ code: error.code, message: error.message });
    }
  });

  it('tries again while a service is unreachable, and records it an hour after the failure', () => {
    const unavailable = new DomainException('service_unavailable', 'No workflow service answered.');
    expect(refusalOf(unavailable, ended, soon)).toBeNull();
    expect(refusalOf(new Error('connection terminated'), ended, soon)).toBeNull();
    expect(refusalOf(unavailable, ended, late)).toEqual({
      code: 'service_unavailable',
      message: expect.stringContaining('within an hour of the failure: No workflow service answered.'),
    });
    expect(refusalOf(new Error('connection terminated'), ended, late)?.code).toBe('internal');
  });
});
