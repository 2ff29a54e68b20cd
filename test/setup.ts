// Root hooks for every mocha run: one database per process, closed at the end.
import { closeTestDatabase } from './helpers/db.ts';

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await closeTestDatabase();
  },
};
