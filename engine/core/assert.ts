/**
 * A broken invariant is a bug: crash rather than continue with a wrong ledger or book. Expected refusals
 * are result codes (results.ts), never assertions.
 */
export function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`invariant broken: ${message}`);
}
