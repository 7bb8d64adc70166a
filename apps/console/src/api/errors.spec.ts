import { describe, expect, it } from '@jest/globals';

import { ApiError, describeError, issuesAt, toApiError, withoutIssuesAt } from './errors';

describe('API errors in words', () => {
  it("reads the contract's shape, with the issues of a refused request", () => {
    const error = toApiError(400, {
      error: {
        code: 'invalid_request',
        message: 'The request is not valid.',
        details: { issues: [{ path: 'name', message: 'name must be shorter than 100 characters' }] },
      },
    });
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('invalid_request');
    expect(describeError(error)).toBe(
      'The request is not valid. name: name must be shorter than 100 characters.',
    );
  });

  it("reads better-auth's own shape", () => {
    const error = toApiError(401, {
      code: 'INVALID_EMAIL_OR_PASSWORD',
      message: 'Invalid email or password',
    });
    expect(error.code).toBe('invalid_email_or_password');
    expect(describeError(error)).toBe('Invalid email or password');
  });

  it('says what a plan limit is', () => {
    const error = toApiError(402, {
      error: {
        code: 'plan_limit_reached',
        message: 'Your plan allows 3 projects.',
        details: { resource: 'projects', limit: 3 },
      },
    });
    expect(describeError(error)).toBe('Your plan allows 3 projects. (projects: 3 on your plan)');
  });

  it('says why a run control was refused: the run moved on', () => {
    const error = toApiError(409, {
      error: {
        code: 'run_not_active',
        message: 'The run is complete: there is nothing to cancel.',
        details: { status: 'complete' },
      },
    });
    expect(describeError(error)).toBe(
      'The run is complete: there is nothing to cancel. It changed since this page read it; the page now shows it as it is.',
    );
  });

  it('never shows a body it cannot read, nor JSON', () => {
    expect(describeError(toApiError(502, '<html>bad gateway</html>'))).toBe(
      'The server answered 502 without saying why.',
    );
    expect(describeError(toApiError(0, null))).toMatch(/could not be reached/);
  });

  it("finds a refused request's issues at a field, and leaves the rest to the form's notice", () => {
    const error = toApiError(400, {
      error: {
        code: 'invalid_request',
        message: 'The request is not valid.',
        details: {
          issues: [
            { path: 'config.url', message: 'the tools could not be listed (HTTP 401)' },
            { path: 'config.headers.x-key', message: 'x-key is not a header name' },
            { path: 'config.urls', message: 'not the url field' },
            { path: 'name', message: 'name is taken' },
          ],
        },
      },
    });
    expect(issuesAt(error, 'config.url')).toEqual(['the tools could not be listed (HTTP 401)']);
    expect(issuesAt(error, 'config.headers')).toEqual(['x-key is not a header name']);
    expect(issuesAt(error, 'config.bearerToken')).toEqual([]);
    expect(issuesAt(new Error('down'), 'config.url')).toEqual([]);

    expect(describeError(withoutIssuesAt(error, ['config.url', 'config.headers']))).toBe(
      'The request is not valid. config.urls: not the url field; name: name is taken.',
    );
    expect(withoutIssuesAt(error, ['config', 'name'])).toBeNull();
    expect(withoutIssuesAt(error, ['config.bearerToken'])).toBe(error);
    const down = toApiError(503, { error: { code: 'service_unavailable', message: 'down' } });
    expect(withoutIssuesAt(down, ['config.url'])).toBe(down);
  });
});
