import { describe, expect, it } from 'vitest';
import type { PayBody } from '../../../server/bff/checkout-api';
import { deviceInfoOf } from '../../../server/bff/payments/service';

const body = {
  method: 'debit',
  installments: 1,
  encryptedCard: 'x',
  cardholderName: 'MARIA',
  fingerprint: '3f2a0a7e-8a0e-4a57-9d55-2b2f1f7f0c11',
  deviceInfo: {
    language: 'pt-BR',
    javaEnabled: false,
    colorDepth: 24,
    screenHeight: 900,
    screenWidth: 1440,
    timezoneOffset: 180,
    userAgent: 'frame UA',
  },
} satisfies PayBody;

describe('deviceInfoOf', () => {
  it('adds what JavaScript cannot read: the frame page Accept, the IP and the User-Agent header', () => {
    expect(
      deviceInfoOf(body, 'text/html,*/*;q=0.8', {
        clientIp: '203.0.113.9',
        userAgent: 'header UA',
        accept: 'application/json',
      }),
    ).toEqual({
      httpAcceptBrowserValue: 'text/html,*/*;q=0.8',
      httpAcceptContent: 'text/html,*/*;q=0.8',
      httpBrowserLanguage: 'pt-BR',
      httpBrowserJavaEnabled: 'N',
      httpBrowserJavaScriptEnabled: 'Y',
      httpBrowserColorDepth: '24',
      httpBrowserScreenHeight: '900',
      httpBrowserScreenWidth: '1440',
      httpBrowserTimeDifference: '180',
      userAgentBrowserValue: 'header UA',
      ipAddress: '203.0.113.9',
    });
  });

  it('falls back to the request Accept and the frame-read user agent', () => {
    const info = deviceInfoOf(body, null, { accept: 'application/json' });
    expect(info.httpAcceptContent).toBe('application/json');
    expect(info.userAgentBrowserValue).toBe('frame UA');
    expect(info.ipAddress).toBeUndefined();
  });

  it('cuts the user agent to 255 characters between whole characters', () => {
    // The frame's own user agent (no header): 254 units, then an emoji across the line.
    const userAgent = `${'a'.repeat(254)}😀tail`;
    const info = deviceInfoOf({ ...body, deviceInfo: { ...body.deviceInfo, userAgent } }, null, {});
    expect(info.userAgentBrowserValue).toBe('a'.repeat(254));
  });
});
