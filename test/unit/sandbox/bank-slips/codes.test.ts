import {
  getBoletoInfo,
  getPixPayloadInfo,
  isValidBoleto,
  isValidPixPayload,
} from '@brazilian-utils/brazilian-utils';
import crc16ccitt from 'crc/crc16ccitt';
import { describe, expect, it } from 'vitest';
import {
  barcode,
  crc16CcittFalse,
  digitableLine,
  dueDateFactor,
  isValidBarcode,
  mod10,
  mod11,
  pixEmv,
} from '../../../../server/sandbox/bank-slips/codes';

// Independent oracles: @brazilian-utils/brazilian-utils validates digitable lines and Pix
// payloads (and reads the due date back from the factor); `crc` computes CRC16-CCITT-FALSE.

describe('due-date factor', () => {
  it.each([
    ['2000-07-03', 1000],
    ['2000-07-04', 1001],
    ['2025-02-21', 9999],
    ['2025-02-22', 1000], // the FEBRABAN rollover
    ['2025-02-23', 1001],
    ['2026-11-23', 1639],
  ])('%s → %i', (date, factor) => {
    expect(dueDateFactor(date)).toBe(factor);
  });

  it('refuses dates a factor cannot express', () => {
    expect(() => dueDateFactor('2000-07-02')).toThrow(RangeError);
  });
});

describe('check digits', () => {
  it('mod 10 of known digitable-line fields', () => {
    // Fields of a published Banco do Brasil example line 00190.00009 01234.567897 …
    expect(mod10('001900000')).toBe(9);
    expect(mod10('0123456789')).toBe(7);
  });

  it('mod 11 maps 0, 10 and 11 to 1', () => {
    // 43 zeros: sum 0 → 11 - 0 = 11 → 1
    expect(mod11('0'.repeat(43))).toBe(1);
  });
});

const free = '0000001234567890123456789';

describe('barcode and digitable line', () => {
  const cases = [
    { dueDate: '2025-02-21', cents: 12345 },
    { dueDate: '2025-02-22', cents: 1 },
    { dueDate: '2026-11-23', cents: 9_999_999_999 },
    { dueDate: '2030-01-31', cents: 100_000 },
  ];

  it.each(cases)('%o is valid for the oracle and carries due date and value', (c) => {
    const code = barcode({ bankCode: '001', freeField: free, ...c });
    expect(code).toMatch(/^\d{44}$/);
    expect(code.slice(0, 4)).toBe('0019');
    expect(isValidBarcode(code)).toBe(true);
    const line = digitableLine(code);
    expect(line).toMatch(/^\d{47}$/);
    expect(isValidBoleto(line)).toBe(true);
    const info = getBoletoInfo(line, { referenceDate: new Date(`${c.dueDate}T12:00:00`) });
    expect(info?.amount).toBe(c.cents);
    expect(info?.bankCode).toBe('001');
    const d = info!.expirationDate!;
    const local = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    expect(local).toBe(c.dueDate);
  });

  it('a single changed digit breaks the oracle check', () => {
    const line = digitableLine(
      barcode({ bankCode: '001', dueDate: '2026-11-23', cents: 500, freeField: free }),
    );
    for (const i of [3, 12, 25, 33, 40]) {
      const bad = line.slice(0, i) + String((Number(line[i]) + 1) % 10) + line.slice(i + 1);
      expect(isValidBoleto(bad), `digit ${i}`).toBe(false);
    }
  });

  it('refuses values over ten digits of cents and malformed parts', () => {
    expect(() =>
      barcode({ bankCode: '001', dueDate: '2026-01-01', cents: 10_000_000_000, freeField: free }),
    ).toThrow();
    expect(() =>
      barcode({ bankCode: '01', dueDate: '2026-01-01', cents: 1, freeField: free }),
    ).toThrow();
    expect(() =>
      barcode({ bankCode: '001', dueDate: '2026-01-01', cents: 1, freeField: '1' }),
    ).toThrow();
  });
});

describe('Pix EMV BR Code', () => {
  it.each(['123456789', 'hello', '000201010212'])('CRC16-CCITT-FALSE agrees with crc (%s)', (s) => {
    expect(crc16CcittFalse(s)).toBe(crc16ccitt(s));
  });

  it('the standard check value of "123456789" is 0x29B1', () => {
    expect(crc16CcittFalse('123456789')).toBe(0x29b1);
  });

  it('builds a payload the oracle accepts, with key, amount and txid', () => {
    const emv = pixEmv({
      key: '123e4567-e89b-12d3-a456-426614174000',
      merchantName: 'Loja São João & Filhos Comércio Ltda',
      merchantCity: 'São Paulo',
      cents: 12345,
      txid: 'abc-123',
    });
    expect(isValidPixPayload(emv)).toBe(true);
    expect(emv.slice(-8, -4)).toBe('6304');
    expect(emv.slice(-4)).toBe(
      crc16ccitt(emv.slice(0, -4)).toString(16).toUpperCase().padStart(4, '0'),
    );
    expect(getPixPayloadInfo(emv)).toMatchObject({
      key: '123e4567-e89b-12d3-a456-426614174000',
      amount: 123.45,
      txid: 'abc123',
      merchantName: 'LOJA SAO JOAO  FILHOS COM',
      merchantCity: 'SAO PAULO',
    });
    const tampered = emv.replace('123.45', '123.46');
    expect(isValidPixPayload(tampered)).toBe(false);
  });
});
