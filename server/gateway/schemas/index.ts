export * from './common';
export * from './auth';
export * from './keys';
export * from './payments';
export * from './refunds';
