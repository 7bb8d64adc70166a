import { keyReuse, requestFingerprint } from './idempotency.util.js';

const request = { workflowId: 'w1', draft: false, triggerNodeId: 't', input: '{"a":1}' };

describe('requestFingerprint', () => {
  it('is the same for the same request and differs when any field the caller sent differs', () => {
    const base = requestFingerprint(request);
    expect(requestFingerprint({ ...request })).toBe(base);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    const variants = [
      { ...request, workflowId: 'w2' },
      { ...request, draft: true },
      { ...request, triggerNodeId: 'u' },
      { ...request, triggerNodeId: undefined },
      { ...request, input: '{"a": 1}' },
      { ...request, input: '' },
    ];
    const fingerprints = variants.map(requestFingerprint);
    expect(new Set([base, ...fingerprints]).size).toBe(variants.length + 1);
  });

  it('cannot be fooled by moving text between fields', () => {
    expect(requestFingerprint({ ...request, triggerNodeId: 'a","b', input: 'c' })).not.toBe(
      requestFingerprint({ ...request, triggerNodeId: 'a', input: 'b","c' }),
    );
  });
});

describe('keyReuse', () => {
  const fingerprint = requestFingerprint(request);

  it('replays the same request to the same workflow', () => {
    expect(keyReuse({ workflowId: 'w1', fingerprint }, { workflowId: 'w1', fingerprint })).toBe('replay');
  });

  it('refuses another workflow, whatever the body', () => {
    expect(keyReuse({ workflowId: 'w1', fingerprint }, { workflowId: 'w2', fingerprint })).toBe(
      'other_workflow',
    );
    expect(keyReuse({ workflowId: 'w1', fingerprint: null }, { workflowId: 'w2', fingerprint })).toBe(
      'other_workflow',
    );
  });

  it('refuses another body to the same workflow', () => {
    expect(keyReuse({ workflowId: 'w1', fingerprint: 'x' }, { workflowId: 'w1', fingerprint })).toBe(
      'other_request',
    );
  });

  it('replays a run recorded before fingerprints for any body of its workflow', () => {
    expect(keyReuse({ workflowId: 'w1', fingerprint: null }, { workflowId: 'w1', fingerprint })).toBe(
      'replay',
    );
  });
});
