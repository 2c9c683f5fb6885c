// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Lint rules: typescript-eslint's recommended, type-aware set. Formatting is Prettier's job
 * (`npm run format`), so no stylistic rule lives here.
 */
export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', '.test-build/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // The SQLite repositories implement the async Store port (async because PostgreSQL is) with
    // better-sqlite3's synchronous calls. They stay `async` on purpose: a failing statement then
    // rejects the promise, exactly as the PostgreSQL adapter does, instead of throwing at the caller.
    files: ['src/store/*-repository.ts', 'src/store/sqlite-store.ts'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
  {
    // Test code only. Fakes and stubs implement async ports synchronously and stay `async` for the
    // same reason as the SQLite adapter: their throws must reach the code under test as rejections.
    // vitest types its asymmetric matchers (expect.any, expect.stringContaining, expect.objectContaining)
    // as `any`, so putting one in an expected object is an "unsafe assignment" by construction.
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    // Plain JavaScript run by Node as it is (a loader hook preloaded into a test's child): no types to check.
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
