/**
 * Domain modules: the parts of the state machine that live outside the core (engine/domains: exchange
 * algos, the price oracle, and markets, vaults and the rest as they come). A domain is a folder with a
 * descriptor (`DomainDescriptor`, below) listed once in engine/domains/index.ts; from that list the engine
 * dispatches, the journal encodes and decodes, journal-inspect names and the event tape records, so adding
 * a domain touches no other domain and no switch in the core.
 *
 * What a domain sees of the core is `DomainPort` (port.ts): ledger moves and holds, order placement through
 * the client's own path, the command's journaled time, event emission and the other domains' queries. It
 * never sees the Engine class, so the ledger's rules hold for a domain as for a client.
 *
 * Numbers: a domain has an id d in 1..999; its command types, event types and result codes all lie in
 * d × 1000 .. d × 1000 + 999. The id is part of the journal format: never reuse or renumber one.
 *
 * A module whose state is empty adds nothing to the hash and nothing to a snapshot: states from before the
 * module existed hash as they did (the golden journal's hash does not move).
 */
import type { CommandKind, DomainCommand } from './commands.ts';
import type { DomainEvent } from './events.ts';
import type { DomainPort } from './port.ts';
import type { DomainModule } from './domain-module.ts';
import type { DomainCommandGenerator } from './sim/generator.ts';

/** Writes the fields of a domain command into its journal frame, in the codec's fixed order. */
export interface FieldWriter {
  integer(value: number): void;
  string(value: string): void;
  integers(values: readonly number[]): void;
  strings(values: readonly string[]): void;
}

/** Reads them back; every read checks its type and bound and throws a format error naming `what`. */
export interface FieldReader {
  integer(what: string): number;
  string(what: string, charsMax: number): string;
  integers(what: string, countMax: number): number[];
  strings(what: string, countMax: number, charsMax: number): string[];
}

/**
 * How one domain command is journaled: its frame is `[kind 17, seq, ts, type, domain format version,
 * ...fields]` with exactly `fieldCount` fields. `read` gets the version the frame was written with, so a
 * domain can change its layout by bumping its own version without touching anyone else's frames.
 */
export interface DomainCommandCodec<Body = unknown> {
  readonly type: number;
  /** The command's name for tools (journal-inspect), imperative: `PostPriceTicks`. */
  readonly name: string;
  readonly fieldCount: number;
  /** Whether the body fits the format (safe integers, bounded strings and lists). */
  isEncodable(body: Body): boolean;
  write(writer: FieldWriter, body: Body): void;
  read(reader: FieldReader, version: number): Body;
}

/** One field of a domain command's frame, with the bound its reader checks. */
export type FieldSpec =
  | { readonly kind: 'integer' }
  | { readonly kind: 'string'; readonly charsMax: number }
  | { readonly kind: 'integers'; readonly countMax: number }
  | { readonly kind: 'strings'; readonly countMax: number; readonly charsMax: number };

/** The field kinds a declared codec takes (see `fieldCodec`). */
export const field = {
  integer: { kind: 'integer' } as FieldSpec,
  string: (charsMax: number): FieldSpec => ({ kind: 'string', charsMax }),
  integers: (countMax: number): FieldSpec => ({ kind: 'integers', countMax }),
  strings: (countMax: number, charsMax: number): FieldSpec => ({ kind: 'strings', countMax, charsMax }),
} as const;

/** What the journal format takes as a string field: printable ASCII within the bound (rules may be stricter). */
function stringFits(value: unknown, charsMax: number): boolean {
  return typeof value === 'string' && value.length <= charsMax && /^[\x20-\x7e]*$/.test(value);
}

function fieldFits(spec: FieldSpec, value: unknown): boolean {
  switch (spec.kind) {
    case 'integer':
      return Number.isSafeInteger(value);
    case 'string':
      return stringFits(value, spec.charsMax);
    case 'integers':
      return Array.isArray(value) && value.length <= spec.countMax && value.every((item) => Number.isSafeInteger(item));
    case 'strings':
      return Array.isArray(value) && value.length <= spec.countMax && value.every((item) => stringFits(item, spec.charsMax));
  }
}

/**
 * A codec declared by its fields, in journal order (the object's key order is the frame's field order):
 * `fieldCount`, `isEncodable`, `write` and `read` all follow from the one list, so a command's layout is
 * written once. Frames are the same as a hand-written codec's writing the same fields in the same order.
 */
export function fieldCodec<Body extends object>(type: number, name: string, fields: { readonly [K in keyof Body]: FieldSpec }): DomainCommandCodec<Body> {
  const entries = Object.entries(fields) as Array<[keyof Body & string, FieldSpec]>;
  return {
    type,
    name,
    fieldCount: entries.length,
    isEncodable: (body) => entries.every(([key, spec]) => fieldFits(spec, body[key])),
    write(writer, body) {
      for (const [key, spec] of entries) {
        const value = body[key] as unknown;
        if (spec.kind === 'integer') writer.integer(value as number);
        else if (spec.kind === 'string') writer.string(value as string);
        else if (spec.kind === 'integers') writer.integers(value as number[]);
        else writer.strings(value as string[]);
      }
    },
    read(reader) {
      const body: Record<string, unknown> = {};
      for (const [key, spec] of entries) {
        if (spec.kind === 'integer') body[key] = reader.integer(key);
        else if (spec.kind === 'string') body[key] = reader.string(key, spec.charsMax);
        else if (spec.kind === 'integers') body[key] = reader.integers(key, spec.countMax);
        else body[key] = reader.strings(key, spec.countMax, spec.charsMax);
      }
      return body as Body;
    },
  };
}

export interface DomainDescriptor {
  /** 1..999, stable: it fixes the domain's number ranges. */
  readonly id: number;
  /** Stable name: the key of the module's state in snapshots. */
  readonly name: string;
  /** The version of this domain's frames that this build writes (it reads every older one). */
  readonly formatVersion: number;
  readonly commands: readonly DomainCommandCodec<any>[];
  /** Names of its event types, for tools. */
  readonly eventNames: Readonly<Record<number, string>>;
  /** Makes the domain's module for one engine (every engine, restored ones too, gets a fresh module). */
  create(port: DomainPort): DomainModule;
  /** Its part of the seeded simulation: a fresh generator of its commands, valid and refused ones. */
  simulation(): DomainCommandGenerator;
}

/** Whether `type` lies in the number range of the domain with id `domainId`. */
export function inDomainRange(domainId: number, type: number): boolean {
  return type >= domainId * 1000 && type <= domainId * 1000 + 999;
}

/** A domain command with its stamps left for the sequencer to fill. */
export function domainCommand<Body>(type: number, body: Body): DomainCommand<Body> {
  return { kind: 17 satisfies typeof CommandKind.domain, seq: 0, ts: 0, type, body };
}

/** A domain event (a fresh object: consumers may keep it). */
export function domainEvent<Body>(type: number, body: Body): DomainEvent<Body> {
  return { kind: 18, type, body };
}

/** Makes one module of an engine, given the engine's port. */
export type DomainMaker = (port: DomainPort) => DomainModule;

/**
 * Makes an engine's modules, in order (each engine has its own; a restored engine gets fresh ones). The
 * engine calls the makers one by one, so a module may look up the modules made before it with
 * `port.domain(name)` while it is made (to register a price-tick listener, say).
 */
export type DomainFactory = readonly DomainMaker[];

// The module's side lives in a leaf file (domain-module.ts); domains import it from here as before.
export { OrderReport, noTimerMs, type DomainModule } from './domain-module.ts';
