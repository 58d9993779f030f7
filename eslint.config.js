import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'data/',
      'coverage/',
      'test-results/',
      'playwright-report/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    // Boundaries (DESIGN §2): the widget is bundled for merchant pages and imports only
    // widget/ and contract/; contract/ is types and constants, importing nothing else.
    files: ['widget/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./(\\.\\./)*(server|demo|scripts|test)(/|$)',
              message: 'The widget imports only widget/ and contract/ (shared types, no runtime).',
            },
            {
              regex: '^zod$',
              message: 'zod stays on the server; the widget gets types from contract/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./)',
              message: 'contract/ imports nothing outside itself: no packages, no server code.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['scripts/**', 'test/bench/**', 'test/fuzz/run.ts', 'server/*/main.ts'],
    rules: { 'no-console': 'off' },
  },
  prettier,
);
