/**
 * The lookup tables built from the domain list: a domain command's codec and its domain by type, and an
 * event type's name. Built once at load; a clash of ids, names or numbers is a programming error and
 * throws at start.
 */
import { inDomainRange, type DomainCommandCodec, type DomainDescriptor } from '../core/domain.ts';

export interface DomainCodecs {
  readonly descriptors: readonly DomainDescriptor[];
  codecOf(type: number): DomainCommandCodec<unknown> | undefined;
  domainOfType(type: number): DomainDescriptor | undefined;
  eventName(type: number): string;
  commandName(type: number): string;
}

export class DomainRegistry implements DomainCodecs {
  private readonly codecs = new Map<number, DomainCommandCodec<unknown>>();
  private readonly domains = new Map<number, DomainDescriptor>();

  constructor(readonly descriptors: readonly DomainDescriptor[]) {
    const ids = new Set<number>();
    const names = new Set<string>();
    for (const descriptor of descriptors) {
      if (!Number.isInteger(descriptor.id) || descriptor.id < 1 || descriptor.id > 999 || ids.has(descriptor.id)) {
        throw new Error(`domain ${descriptor.name}: id ${descriptor.id} is not a new id in 1..999`);
      }
      if (names.has(descriptor.name)) throw new Error(`two domains are named ${descriptor.name}`);
      if (!Number.isInteger(descriptor.formatVersion) || descriptor.formatVersion < 1) throw new Error(`domain ${descriptor.name}: format version must be 1 or more`);
      ids.add(descriptor.id);
      names.add(descriptor.name);
      for (const codec of descriptor.commands) {
        if (!inDomainRange(descriptor.id, codec.type) || this.codecs.has(codec.type)) {
          throw new Error(`domain ${descriptor.name}: command type ${codec.type} is outside its range or taken`);
        }
        this.codecs.set(codec.type, codec as DomainCommandCodec<unknown>);
        this.domains.set(codec.type, descriptor);
      }
      for (const type of Object.keys(descriptor.eventNames).map(Number)) {
        if (!inDomainRange(descriptor.id, type)) throw new Error(`domain ${descriptor.name}: event type ${type} is outside its range`);
      }
    }
  }

  codecOf(type: number): DomainCommandCodec<unknown> | undefined {
    return this.codecs.get(type);
  }

  domainOfType(type: number): DomainDescriptor | undefined {
    return this.domains.get(type) ?? this.descriptors.find((descriptor) => inDomainRange(descriptor.id, type));
  }

  eventName(type: number): string {
    return this.domainOfType(type)?.eventNames[type] ?? `DomainEvent${type}`;
  }

  commandName(type: number): string {
    return this.codecs.get(type)?.name ?? `DomainCommand${type}`;
  }
}
