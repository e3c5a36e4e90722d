/**
 * The support agents' documents, cut into passages: README.md and every Markdown file under docs/ split by
 * their headings, the OpenAPI document built from the route table (one passage per operation) and
 * llms.txt. A passage is the unit the index ranks and the answer quotes: one paragraph, list or code block
 * of one section (a block longer than `passageCharsMax` is cut at line ends), named by its document and
 * its heading path, so that every sentence of an answer can be cited.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Passage {
  /** Position in the corpus (the index's document id). */
  readonly id: number;
  /** `README.md`, `docs/skills/default/SKILL.md`, `llms.txt` or `openapi:<operationId>`. */
  readonly document: string;
  /** The heading path inside the document (`Commands > Quick start`), or the operation's tag, method and path. */
  readonly section: string;
  /** The nearest heading, or the operation's name in words: the index boosts it. */
  readonly title: string;
  readonly text: string;
  /** A code block: its sentences are its lines. */
  readonly code: boolean;
}

/** Longest passage, in characters; a longer block is cut at line ends. */
export const passageCharsMax = 1500;
/** Markdown files read under docs/ at most, and the largest one read, in bytes. */
export const docsFilesMax = 200;
export const docBytesMax = 1024 * 1024;
/** Passages in the whole corpus at most; more is a startup error rather than an index without bound. */
export const passagesMax = 20_000;

/**
 * The repository's root. The sources sit two levels down (shell/support/) and so does the bundle
 * (dist/shell/server.mjs, see scripts/build.mjs), so one relative URL finds it from tsx and from dist/.
 */
export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

type Draft = Omit<Passage, 'id'>;

/** Cuts a block longer than the maximum at line ends (a single longer line is cut at the maximum). */
function pieces(text: string): string[] {
  if (text.length <= passageCharsMax) return [text];
  const out: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    for (let start = 0; start < Math.max(line.length, 1); start += passageCharsMax) {
      const part = line.slice(start, start + passageCharsMax);
      if (current !== '' && current.length + 1 + part.length > passageCharsMax) {
        out.push(current);
        current = '';
      }
      current = current === '' ? part : `${current}\n${part}`;
    }
  }
  if (current.trim() !== '') out.push(current);
  return out;
}

/** YAML front matter (`---` ... `---` at the very top) is metadata, not prose: it is left out. */
function withoutFrontMatter(markdown: string): string {
  if (!markdown.startsWith('---\n')) return markdown;
  const end = markdown.indexOf('\n---', 4);
  return end < 0 ? markdown : markdown.slice(markdown.indexOf('\n', end + 1) + 1);
}

/**
 * A Markdown document's passages. The section path is the chain of headings from level 2 down (the level-1
 * heading is the document's title, used only for text before the first level-2 heading); headings inside
 * code blocks are code.
 */
export function markdownPassages(document: string, markdown: string): Draft[] {
  const out: Draft[] = [];
  const headings: string[] = [];
  let block: string[] = [];
  let fence: string | null = null;
  const flush = (code: boolean): void => {
    const text = block.join('\n').trim();
    block = [];
    if (text === '') return;
    const path = headings.slice(1).filter((heading) => heading !== '');
    const section = path.length > 0 ? path.join(' > ') : (headings[0] ?? document);
    const title = path.at(-1) ?? headings[0] ?? document;
    for (const piece of pieces(text)) out.push({ document, section, title, text: piece, code });
  };
  for (const line of withoutFrontMatter(markdown).replaceAll('\r\n', '\n').split('\n')) {
    const fenceMark = /^\s*(```|~~~)/.exec(line)?.[1];
    if (fence !== null) {
      block.push(line);
      if (fenceMark === fence) {
        fence = null;
        flush(true);
      }
      continue;
    }
    if (fenceMark !== undefined) {
      flush(false);
      fence = fenceMark;
      block.push(line);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading !== null) {
      flush(false);
      const level = heading[1]!.length;
      headings.length = Math.min(headings.length, level - 1);
      while (headings.length < level - 1) headings.push('');
      headings.push(heading[2]!.replaceAll('`', ''));
      continue;
    }
    if (line.trim() === '') flush(false);
    else block.push(line);
  }
  flush(fence !== null);
  return out;
}

/** Markdown files under `dir`, sorted by path, at most `docsFilesMax`. */
function markdownFiles(dir: string): string[] {
  const found: string[] = [];
  const visit = (at: string): void => {
    let entries;
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) found.push(path);
    }
  };
  visit(dir);
  found.sort();
  if (found.length > docsFilesMax) throw new Error(`support: more than ${docsFilesMax} Markdown files under docs/`);
  return found;
}

function readBounded(path: string): string {
  const text = readFileSync(path, 'utf8');
  if (Buffer.byteLength(text) > docBytesMax) throw new Error(`support: ${path} is larger than ${docBytesMax} bytes`);
  return text;
}

/** README.md and every Markdown file under docs/, from the repository at `root`. */
export function repositoryPassages(root: string): Draft[] {
  const out = markdownPassages('README.md', readBounded(join(root, 'README.md')));
  for (const file of markdownFiles(join(root, 'docs'))) {
    out.push(...markdownPassages(relative(root, file).split(sep).join('/'), readBounded(file)));
  }
  return out;
}

interface Operation {
  readonly operationId?: string;
  readonly summary?: string;
  readonly tags?: readonly string[];
  readonly parameters?: ReadonlyArray<{ name?: string; in?: string; required?: boolean }>;
  readonly requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown>; required?: readonly string[] } }> };
  readonly security?: ReadonlyArray<Record<string, unknown>>;
}

const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** How an operation's security reads in words. */
function authWords(security: Operation['security']): string {
  if (security === undefined || security.length === 0) return 'no credentials';
  const schemes = security.map((requirement) => Object.keys(requirement).join(' and ') || 'anonymous');
  return schemes.join(' or ');
}

/**
 * One passage per operation of an OpenAPI document: `METHOD path: summary`, then its parameters, its body
 * fields and its credentials. The title is the operation's name in words (`tp clob place scale`).
 */
export function openApiPassages(document: Record<string, unknown>): Draft[] {
  const out: Draft[] = [];
  const paths = (document['paths'] ?? {}) as Record<string, Record<string, Operation>>;
  for (const path of Object.keys(paths).sort()) {
    for (const method of methods) {
      const operation = paths[path]![method];
      if (operation === undefined) continue;
      const name = operation.operationId ?? `${method}_${path}`;
      const summary = (operation.summary ?? '').trim();
      const lines = [`${method.toUpperCase()} ${path}: ${summary}${/[.!?]$/.test(summary) ? '' : '.'}`];
      const parameters = (operation.parameters ?? []).map((parameter) => `${parameter.name ?? '?'} (${parameter.in ?? '?'}${parameter.required === true ? ', required' : ''})`);
      if (parameters.length > 0) lines.push(`Parameters: ${parameters.join(', ')}.`);
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      const fields = Object.keys(schema?.properties ?? {}).map((field) => (schema?.required?.includes(field) === true ? `${field} (required)` : field));
      if (fields.length > 0) lines.push(`Body fields: ${fields.join(', ')}.`);
      lines.push(`Credentials: ${authWords(operation.security)}.`);
      const tag = operation.tags?.[0] ?? 'API';
      for (const piece of pieces(lines.join('\n'))) {
        out.push({ document: `openapi:${name}`, section: `${tag} > ${method.toUpperCase()} ${path}`, title: name.replaceAll('_', ' '), text: piece, code: false });
      }
    }
  }
  return out;
}

/** llms.txt is Markdown (a title, a summary, then `## ` sections of route lines). */
export function llmsPassages(text: string): Draft[] {
  return markdownPassages('llms.txt', text);
}

/** Numbers the passages in order and checks the bound. */
export function numbered(drafts: readonly Draft[]): Passage[] {
  if (drafts.length > passagesMax) throw new Error(`support: more than ${passagesMax} passages`);
  return drafts.map((draft, id) => ({ id, ...draft }));
}
