import { describe, expect, it } from 'vitest';
import type { DeviceSource } from '../../../../widget/device/device-info';
import { collectDeviceInfo, snapColorDepth } from '../../../../widget/device/device-info';

describe('snapColorDepth', () => {
  it.each([
    [0, 1],
    [1, 1],
    [3, 1],
    [4, 4],
    [8, 8],
    [10, 8],
    [15, 15],
    [16, 16],
    [24, 24],
    [30, 24],
    [32, 32],
    [47, 32],
    [48, 48],
    [64, 48],
  ])('%i → %i', (input, out) => expect(snapColorDepth(input)).toBe(out));
});

const source = (over: Partial<DeviceSource> = {}): DeviceSource => ({
  navigator: { language: 'pt-BR', userAgent: 'Mozilla/5.0 Test', javaEnabled: () => false },
  screen: { colorDepth: 30, height: 1080, width: 1920 },
  timezoneOffset: 180,
  ...over,
});

describe('collectDeviceInfo', () => {
  it('maps the browser to FrameDeviceInfo', () => {
    expect(collectDeviceInfo(source())).toEqual({
      language: 'pt-BR',
      javaEnabled: false,
      colorDepth: 24,
      screenHeight: 1080,
      screenWidth: 1920,
      timezoneOffset: 180,
      userAgent: 'Mozilla/5.0 Test',
    });
  });

  it('trims language to 8 and UA to 255, clamps the screen, tolerates no javaEnabled', () => {
    const info = collectDeviceInfo(
      source({
        navigator: { language: 'zh-Hant-TW-x-long', userAgent: 'x'.repeat(400) },
        screen: { colorDepth: 24, height: 20000, width: -5 },
        timezoneOffset: -180,
      }),
    );
    expect(info.language).toBe('zh-Hant-');
    expect(info.userAgent).toHaveLength(255);
    expect(info.screenHeight).toBe(9999);
    expect(info.screenWidth).toBe(0);
    expect(info.javaEnabled).toBe(false);
    expect(info.timezoneOffset).toBe(-180);
  });

  it('reports javaEnabled when the browser says so, and survives a throwing one', () => {
    expect(
      collectDeviceInfo(
        source({ navigator: { language: 'en', userAgent: 'u', javaEnabled: () => true } }),
      ).javaEnabled,
    ).toBe(true);
    expect(
      collectDeviceInfo(
        source({
          navigator: {
            language: '',
            userAgent: 'u',
            javaEnabled: () => {
              throw new Error('no');
            },
          },
        }),
      ),
    ).toMatchObject({ javaEnabled: false, language: 'pt-BR' });
  });
});
