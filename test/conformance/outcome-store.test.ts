/** The OutcomeStore suite for the outcomes file (`.loop-runtime/outcomes.jsonl`), real processes included. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileOutcomeStore } from '../../src/adapters/outcomes/outcome-store.js';
import { describeOutcomeStoreConformance } from '../../src/testing/conformance/index.js';
import { afterAll } from 'vitest';
import { cleanupTempDirs, tempDir } from '../git-fixtures.js';
import { appendInProcesses } from './outcome-store-processes.js';

describeOutcomeStoreConformance('FileOutcomeStore', {
  async create() {
    const root = await tempDir('outcome-store-');
    return {
      open: () => new FileOutcomeStore(root),
      appendInOtherProcesses: (batches, processes) => appendInProcesses('files', root, root, batches, processes),
      corrupt: () => writeFile(join(root, '.loop-runtime', 'outcomes.jsonl'), 'not json\n{"type":"proposal"}\n'),
    };
  },
});

afterAll(cleanupTempDirs);
