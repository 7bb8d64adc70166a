import { originsInput } from './origins.util.js';

describe('originsInput', () => {
  it('reads origins as a browser writes them: lower case, default port dropped, each once', () => {
    expect(
      originsInput(
        [
          'HTTPS://API.Example.com',
          'https://api.example.com:443/',
          'http://127.0.0.1:8080',
          'https://[::1]:99',
        ],
        'config.allowedOrigins',
      ),
    ).toEqual(['https://api.example.com', 'http://127.0.0.1:8080', 'https://[::1]:99']);
  });

  it('refuses what is not an origin, saying why', () => {
    const refusal = (value: unknown) => {
      try {
        originsInput(value, 'config.allowedOrigins');
      } catch (error) {
        return (error as { details: { issues: Array<{ path: string; message: string }> } }).details.issues[0];
      }
      return undefined;
    };
    const cases: Array<[unknown, RegExp]> = [
      [undefined, /must list the origins/],
      [[], /must list the origins/],
      ['https://api.example.com', /must list the origins/],
      [[42], /text/],
      [['https://*.example.com'], /no wildcards/],
      [['api.example.com'], /not an origin/],
      [['ftp://api.example.com'], /http or https/],
      [['https://api.example.com/v1'], /only scheme, host and port/],
      [['https://api.example.com/?x=1'], /only scheme, host and port/],
      [['https://api.example.com/#x'], /only scheme, host and port/],
      [['https://user:pw@api.example.com'], /only scheme, host and port/],
      [Array.from({ length: 21 }, (_, index) => `https://a${index}.example.com`), /at most 20/],
    ];
    for (const [value, message] of cases) {
      expect({ value, issue: refusal(value) }).toEqual({
        value,
        issue: { path: 'config.allowedOrigins', message: expect.stringMatching(message) },
      });
    }
  });
});
