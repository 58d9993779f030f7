import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createLogger, lazyChild } from '../../../server/lib/logging';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ level, destination }), lines };
}

describe('lazyChild', () => {
  it('makes no pino child for lines below the level, and writes nothing for them', () => {
    const { logger, lines } = capture('warn');
    const child = vi.spyOn(logger, 'child');
    const request = lazyChild(logger, { requestId: 'req_1' });
    const attempt = lazyChild(request, { attemptId: 'pa_1' });
    request.info({ path: '/pay' }, 'request');
    attempt.info('payment succeeded');
    attempt.debug('detail');
    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
  });

  it('writes lines at the level with every binding, the nested ones included', () => {
    const { logger, lines } = capture('warn');
    const request = lazyChild(logger, { requestId: 'req_2' });
    const attempt = request.child({ attemptId: 'pa_2' });
    const deeper = lazyChild(attempt, { step: 'settle' });
    attempt.warn({ outcome: 'unknown' }, 'payment outcome unknown');
    deeper.error('boom');
    request.warn('plain');
    expect(lines.map((l) => [l.msg, l.requestId, l.attemptId, l.step, l.outcome])).toEqual([
      ['payment outcome unknown', 'req_2', 'pa_2', undefined, 'unknown'],
      ['boom', 'req_2', 'pa_2', 'settle', undefined],
      ['plain', 'req_2', undefined, undefined, undefined],
    ]);
  });

  it('follows the level of its parent and keeps redaction', () => {
    const { logger, lines } = capture('info');
    const log = lazyChild(logger, { requestId: 'req_3' });
    expect(log.isLevelEnabled('info')).toBe(true);
    expect(log.isLevelEnabled('debug')).toBe(false);
    log.info({ card: { number: '4000000000002701' }, clientSecret: 'cs_secret' }, 'redacted');
    expect(lines).toHaveLength(1);
    expect(JSON.stringify(lines[0])).not.toContain('4000000000002701');
    expect(JSON.stringify(lines[0])).not.toContain('cs_secret');
    expect(lines[0]!.requestId).toBe('req_3');
  });
});
