/** Browser data for 3DS (DESIGN §3), read in the frame; the BFF adds Accept, IP and UA header. */
import type { FrameDeviceInfo } from '../../contract/checkout';

/** EMV 3DS accepts these color depths only; a browser's value is snapped down to one. */
export const COLOR_DEPTHS = [1, 4, 8, 15, 16, 24, 32, 48] as const;

export function snapColorDepth(depth: number): number {
  let out: number = COLOR_DEPTHS[0];
  for (const d of COLOR_DEPTHS) if (d <= depth) out = d;
  return out;
}

/** The parts of `window` we read, so tests pass plain objects. */
export interface DeviceSource {
  navigator: Pick<Navigator, 'language' | 'userAgent'> & { javaEnabled?: () => boolean };
  screen: Pick<Screen, 'colorDepth' | 'height' | 'width'>;
  /** Minutes from local time to UTC: positive west of UTC (180 in Brasília). */
  timezoneOffset: number;
}

const clampInt = (n: number, min: number, max: number): number =>
  Number.isFinite(n) ? Math.min(max, Math.max(min, Math.round(n))) : min;

export function collectDeviceInfo(
  source: DeviceSource = {
    navigator,
    screen,
    timezoneOffset: new Date().getTimezoneOffset(),
  },
): FrameDeviceInfo {
  const nav = source.navigator;
  let javaEnabled = false;
  try {
    javaEnabled = nav.javaEnabled?.() === true;
  } catch {
    // A browser whose javaEnabled throws has no Java either.
  }
  return {
    language: (nav.language || 'pt-BR').slice(0, 8),
    javaEnabled,
    colorDepth: snapColorDepth(source.screen.colorDepth),
    screenHeight: clampInt(source.screen.height, 0, 9999),
    screenWidth: clampInt(source.screen.width, 0, 9999),
    timezoneOffset: clampInt(source.timezoneOffset, -999, 9999),
    userAgent: nav.userAgent.slice(0, 255),
  };
}
