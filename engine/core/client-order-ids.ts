/**
 * The client order ids of live orders, per account: account → (client order id → slot). Client ids are
 * unique among an account's live orders (orders/place.ts refuses a duplicate), so one map per account
 * that has any answers placement's uniqueness check, get and cancel by client id, and the ending of an
 * order, each with one lookup of the id as the client gave it. (One map keyed by account and id joined
 * into a string built that string and hashed it afresh on every placement, lookup and ending: a sixth
 * of placement's own time in the replay of a generated journal.) An account's map stays once made, so
 * that its orders coming and going make no garbage.
 */
import { noSlot } from './order-store.ts';

export class ClientOrderIds {
  /** By account; `undefined` for an account that never had an order with a client id. */
  private readonly byAccount: Array<Map<string, number> | undefined> = [];
  /** Live orders with a client id, over every account. */
  size = 0;

  /** The slot of the live order of `account` with this client id, or `noSlot`. */
  get(account: number, clientOrderId: string): number {
    const slots = account < this.byAccount.length ? this.byAccount[account] : undefined;
    return slots?.get(clientOrderId) ?? noSlot;
  }

  has(account: number, clientOrderId: string): boolean {
    return this.get(account, clientOrderId) !== noSlot;
  }

  /** Adds a live order's client id (not yet among its account's). */
  add(account: number, clientOrderId: string, slot: number): void {
    // Filled up to the account with `undefined`, never with holes, so the array keeps one fast layout.
    while (this.byAccount.length <= account) this.byAccount.push(undefined);
    let slots = this.byAccount[account];
    if (slots === undefined) {
      slots = new Map();
      this.byAccount[account] = slots;
    }
    slots.set(clientOrderId, slot);
    this.size++;
  }

  /** Removes an ending order's client id. */
  delete(account: number, clientOrderId: string): void {
    const slots = account < this.byAccount.length ? this.byAccount[account] : undefined;
    if (slots !== undefined && slots.delete(clientOrderId)) this.size--;
  }
}
