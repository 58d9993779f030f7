import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../../support/sandbox';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

describe('token operations', () => {
  it.each(['/api/auth/token', '/api/authentication/login'])(
    '%s issues a 1-hour token',
    async (path) => {
      const res = await sb.call('POST', path, {
        token: null,
        body: { userName: 'sandbox', password: 'sandbox' },
      });
      expect(res.status).toBe(200);
      const body = res.body as Record<string, unknown>;
      expect(body).toMatchObject({ authenticated: true, message: 'OK' });
      expect(typeof body.accessToken).toBe('string');
      expect(Date.parse(body.expiration as string) - Date.parse(body.created as string)).toBe(
        3_600_000,
      );
    },
  );

  it('refuses a wrong password without saying which part was wrong', async () => {
    const res = await sb.call('POST', '/api/auth/token', {
      token: null,
      body: { userName: 'sandbox', password: 'nope' },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual([
      { tag: 'authentication', description: 'userName or password is incorrect' },
    ]);
  });

  it.each([
    [{ userName: 'x'.repeat(31), password: 'p' }, 'userName'],
    [{ userName: 'sandbox', password: 'p'.repeat(257) }, 'password'],
    [{ password: 'sandbox' }, 'userName'],
  ])('validates the body %#', async (body, field) => {
    const res = await sb.call('POST', '/api/auth/token', { token: null, body });
    expect(res.status).toBe(400);
    expect((res.body as { tag: string }[])[0]?.tag).toBe(field);
  });

  it('answers 400 to malformed JSON and 415 to a non-JSON body', async () => {
    const bad = await sb.call('POST', '/api/auth/token', { token: null, body: '{"userName":' });
    expect(bad.status).toBe(400);
    const form = await sb.call('POST', '/api/auth/token', {
      token: null,
      body: 'userName=sandbox',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
  });

  it('answers 400, not 500, to a body nested 5,000 levels deep', async () => {
    const body = `{"a":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
    const res = await sb.call('POST', '/api/auth/token', { token: null, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      expect.arrayContaining([{ tag: 'userName', description: expect.any(String) }]),
    );
  });
});

describe('bearer tokens', () => {
  it('401 without Authorization, with a wrong scheme, or an unknown token', async () => {
    const t = await sb.token();
    for (const authorization of [
      undefined,
      `bearer ${t}`,
      `Token ${t}`,
      `Bearer  ${t}`,
      'Bearer abcdefghijklmnopqrstuvwxyz',
    ]) {
      const res = await sb.call('GET', '/v1/anything', {
        token: null,
        ...(authorization ? { headers: { authorization } } : {}),
      });
      expect(res.status, String(authorization)).toBe(401);
      expect((res.body as { tag: string }[])[0]?.tag).toBe('Authorization');
    }
  });

  it('a token of one API family does not open the other', async () => {
    const integration = await sb.token('integration');
    const res = await sb.call('GET', '/v1/anything', { token: integration });
    expect(res.status).toBe(401);
    expect(JSON.stringify(res.body)).toContain('/api/auth/token');
  });

  it('a live token passes to routing (404 for an unknown path), an expired one is 401', async () => {
    const t = await sb.token();
    expect((await sb.call('GET', '/v1/anything', { token: t })).status).toBe(404);
    sb.realClock.advance(61 * 60_000);
    const res = await sb.call('GET', '/v1/anything', { token: t });
    expect(res.status).toBe(401);
    expect(JSON.stringify(res.body)).toContain('expired');
  });

  it('token lifetime runs on real time: advancing the sandbox clock does not expire a token', async () => {
    const t = await sb.token();
    const moved = await sb.call('POST', '/__sandbox/clock/advance', {
      token: null,
      body: { days: 40 },
    });
    expect(moved.status).toBe(200);
    expect((await sb.call('GET', '/v1/anything', { token: t })).status).toBe(404);
    // A token issued now lives an hour of real time, not of the sandbox's business date.
    const fresh = await sb.call('POST', '/api/auth/token', {
      token: null,
      body: { userName: 'sandbox', password: 'sandbox' },
    });
    const expiration = Date.parse((fresh.body as { expiration: string }).expiration);
    expect(expiration - sb.realClock.now().getTime()).toBeLessThanOrEqual(60 * 60_000);
    expect(expiration - sb.realClock.now().getTime()).toBeGreaterThan(50 * 60_000);
    await sb.call('POST', '/__sandbox/clock/reset', { token: null });
  });

  it('a token already used is unknown after a sandbox reset', async () => {
    const t = await sb.token();
    expect((await sb.call('GET', '/v1/anything', { token: t })).status).toBe(404);
    expect((await sb.call('POST', '/__sandbox/reset', { token: null })).status).toBe(200);
    const res = await sb.call('GET', '/v1/anything', { token: t });
    expect(res.status).toBe(401);
    expect(JSON.stringify(res.body)).toContain('unknown access token');
  });
});
