/**
 * Path matching for the route table: a trie of path segments where a literal segment wins over a
 * `{param}` segment at the same depth (so `/orders/open` is not taken for `/orders/{id}`), with
 * backtracking when the literal branch leads nowhere. A match says either which route fits the method,
 * or that the path exists for other methods (405) or not at all (404).
 */
export interface Match<R> {
  readonly route: R | null;
  readonly params: Readonly<Record<string, string>>;
  /** Methods the path accepts, when it matched a path but not the method. */
  readonly allowed: readonly string[];
}

class Node<R> {
  readonly literals = new Map<string, Node<R>>();
  param: Node<R> | null = null;
  paramName = '';
  readonly methods = new Map<string, R>();
}

/** Path segments longer than this, or paths deeper than this, cannot match anything. */
const segmentCharsMax = 256;
const depthMax = 16;
/**
 * Matches remembered by method and path: a market maker sends the same few paths over and over (one
 * placement path per pair), and splitting, walking and decoding them was a few per cent of the order
 * thread's time in bench:http. Paths that name an order id are one-offs, so the memory is bounded: only
 * paths that found a route and are no longer than `rememberedPathMax` are kept, and once full it is
 * emptied and fills again with what is sent now.
 */
const rememberedMax = 4096;
const rememberedPathMax = 200;

export class Router<R> {
  private readonly root = new Node<R>();
  /** Match results are shared between requests with the same method and path, so callers must not change them. */
  private readonly remembered = new Map<string, Match<R>>();

  add(method: string, path: string, route: R): void {
    this.remembered.clear();
    let node = this.root;
    for (const segment of split(path)) {
      const param = /^\{([a-z_][a-z0-9_]*)\}$/i.exec(segment);
      if (param !== null) {
        if (node.param === null) {
          node.param = new Node<R>();
          node.param.paramName = param[1]!;
        } else if (node.param.paramName !== param[1]) {
          throw new Error(`${path}: parameter {${param[1]}} conflicts with {${node.param.paramName}}`);
        }
        node = node.param;
      } else {
        let next = node.literals.get(segment);
        if (next === undefined) {
          next = new Node<R>();
          node.literals.set(segment, next);
        }
        node = next;
      }
    }
    if (node.methods.has(method)) throw new Error(`duplicate route ${method} ${path}`);
    node.methods.set(method, route);
  }

  match(method: string, path: string): Match<R> {
    const key = `${method} ${path}`;
    const known = this.remembered.get(key);
    if (known !== undefined) return known;
    const match = this.find(method, path);
    if (match.route === null || path.length > rememberedPathMax) return match;
    if (this.remembered.size >= rememberedMax) this.remembered.clear();
    this.remembered.set(key, match);
    return match;
  }

  private find(method: string, path: string): Match<R> {
    const segments = split(path);
    const values: string[] = [];
    const names: string[] = [];
    if (segments.length > depthMax || segments.some((segment) => segment.length > segmentCharsMax)) {
      return { route: null, params: {}, allowed: [] };
    }
    const found = this.walk(this.root, segments, 0, values, names);
    if (found === null) return { route: null, params: {}, allowed: [] };
    const params: Record<string, string> = {};
    names.forEach((name, index) => (params[name] = values[index]!));
    const route = found.methods.get(method) ?? null;
    return { route, params, allowed: route === null ? [...found.methods.keys()] : [] };
  }

  private walk(node: Node<R>, segments: string[], depth: number, values: string[], names: string[]): Node<R> | null {
    if (depth === segments.length) return node.methods.size > 0 ? node : null;
    const segment = segments[depth]!;
    const literal = node.literals.get(segment);
    if (literal !== undefined) {
      const found = this.walk(literal, segments, depth + 1, values, names);
      if (found !== null) return found;
    }
    if (node.param !== null && segment !== '') {
      values.push(decodeSegment(segment));
      names.push(node.param.paramName);
      const found = this.walk(node.param, segments, depth + 1, values, names);
      if (found !== null) return found;
      values.pop();
      names.pop();
    }
    return null;
  }
}

function split(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.split('/').slice(1);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
