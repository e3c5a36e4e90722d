/**
 * Loads the cards to list (fixtures/event-cards.json), strictly: a bad entry stops the start with its
 * reason. Each card becomes a ListCard command; the engine checks the same rules again (validCard) and
 * takes the reference prices itself.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decimalToE8 } from '../../engine/runtime/oracle/assets.ts';
import { validCard, type ListCard } from '../../engine/domains/event-cards/commands.ts';

/** Two folders below the project root, as the server bundle (dist/shell/server.mjs) is, so the same URL works from both. */
export const defaultEventCardsPath = fileURLToPath(new URL('../../fixtures/event-cards.json', import.meta.url));

export function loadEventCards(path = defaultEventCardsPath, known?: ReadonlySet<string>): ListCard[] {
  const document = JSON.parse(readFileSync(path, 'utf8')) as { cards?: unknown };
  if (!Array.isArray(document.cards)) throw new Error(`${path}: cards must be an array`);
  const slugs = new Set<string>();
  return document.cards.map((entry: Record<string, unknown>, index) => {
    const where = `${path}: cards[${index}]`;
    const constituents = Array.isArray(entry['constituents']) ? (entry['constituents'] as Array<Record<string, unknown>>) : [];
    const card: ListCard = {
      slug: entry['id'] as string,
      name: entry['name'] as string,
      description: (entry['description'] as string | undefined) ?? '',
      symbols: constituents.map((constituent) => constituent['symbol'] as string),
      weightsBps: constituents.map((constituent) => constituent['weight'] as number),
      baseIndexE8: typeof entry['base_index'] === 'string' ? (decimalToE8(entry['base_index']) ?? 0) : 0,
    };
    if (!validCard(card) || slugs.has(card.slug)) {
      throw new Error(`${where}: a new id of a-z, 0-9 and -, a name, 1 to 10 distinct constituents {symbol, weight} with weights summing to 10000, base_index 1 to 100000`);
    }
    const unknown = known === undefined ? undefined : card.symbols.find((symbol) => !known.has(symbol));
    if (unknown !== undefined) throw new Error(`${where}: ${unknown} is not an oracle asset`);
    slugs.add(card.slug);
    return card;
  });
}
