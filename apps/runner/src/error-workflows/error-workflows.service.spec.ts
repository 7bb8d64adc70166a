import { DomainException } from '#common';

import { refusalOf } from './error-workflows.service.js';

describe('refusalOf', () => {
  it('records what the start answered about the error workflow itself, at once', () => {
    for (const error of [
      new DomainException('not_published', 'The workflow has no published version.'),
      new DomainException('workflow_paused', 'The workflow is paused: app events start no runs.'),
      DomainException.notFound('workflow', 'w-1'),
      DomainException.planLimit('runs', 100),
    ]) {
      expect(refusalOf(error, false)).toEqual({ code: error.code, message: error.message });
    }
  });

  it('has the start tried again while a service is unreachable, and records that at the last attempt', () => {
    const unavailable = new DomainException('service_unavailable', 'No workflow service answered.');
    expect(refusalOf(unavailable, false)).toBeNull();
    expect(refusalOf(new Error('connection terminated'), false)).toBeNull();
    expect(refusalOf(unavailable, true)).toEqual({
      code: 'service_unavailable',
      message: expect.stringContaining('however often it was tried: No workflow service answered.'),
    });
    expect(refusalOf(new Error('connection terminated'), true)?.code).toBe('internal');
  });
});
