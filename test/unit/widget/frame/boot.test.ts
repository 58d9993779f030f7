/**
 * The frame boot's hook for a renewed session (`cardFormBoot.createApi`), run on a stand-in
 * window: a top-level page (no parent to greet) with no meta tags.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FrameBoot } from '../../../../widget/frame/boot';

let boot: FrameBoot;

beforeAll(async () => {
  const win: Record<string, unknown> = {};
  win.parent = win;
  vi.stubGlobal('window', win);
  vi.stubGlobal('document', { querySelector: () => null, referrer: '' });
  vi.stubGlobal('location', { search: '', ancestorOrigins: undefined });
  await import('../../../../widget/frame/boot');
  boot = win.cardFormBoot as FrameBoot;
});

afterAll(() => {
  vi.unstubAllGlobals();
});

describe('frame boot', () => {
  it('makes an API client for a renewed client secret, and none for anything else', () => {
    const api = boot.createApi('cs_2b9e4c1d_secret_Zm9vYmFyYmF6');
    expect(typeof api?.session).toBe('function');
    for (const secret of ['', 'cs_2b9e4c1d', 'pk_x_secret_y', 'cs_a_secret_b c', 'cs_2b9e_secret_'])
      expect(boot.createApi(secret), secret).toBeNull();
  });
});
