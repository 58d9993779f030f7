export * from './brand';
export * from './document';
export * from './expiry';
export * from './luhn';
export * from './money';
export * from './number';
export * from './security-code';
