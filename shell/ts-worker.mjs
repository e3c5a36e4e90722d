// The entry of a worker thread started from the TypeScript sources (shell/workers.ts): registers tsx's
// loader in this thread, then imports the worker module named by the first argument.
import { register } from 'tsx/esm/api';

register();
await import(process.argv[2]);
