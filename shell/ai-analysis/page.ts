/**
 * Reading a fetched page: its headline, its main text as paragraphs, and the signals the content-type rule
 * uses. HTML goes through Readability on linkedom (the main text without navigation, footers and
 * sidebars), with the whole body's text when Readability finds no article; plain text is split at line
 * breaks; JSON contributes its string values. Every output is bounded.
 */
import { parseHTML } from 'linkedom';
import { Readability } from '@mozilla/readability';

/** Characters of main text kept at most, and of a headline. */
export const pageTextCharsMax = 200_000;
export const headlineCharsMax = 300;
/** String values read from a JSON answer at most. */
const jsonStringsMax = 2_000;
/** Main text Readability must find for its answer to be used instead of the body's text. */
const readabilityCharsMin = 200;

export type PageKind = 'html' | 'text' | 'json';

export interface Page {
  readonly kind: PageKind;
  readonly headline: string;
  readonly paragraphs: readonly string[];
  /** og:type of the page, '' without one. */
  readonly ogType: string;
  /** The page has an <article> element. */
  readonly hasArticleElement: boolean;
  /** <pre> and <code> elements of the page. */
  readonly codeBlocks: number;
}

/** Elements whose text starts and ends a paragraph. */
const blockTags = new Set(['P', 'DIV', 'SECTION', 'ARTICLE', 'LI', 'UL', 'OL', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'BLOCKQUOTE', 'PRE', 'TD', 'TH', 'TR', 'TABLE', 'BR', 'HEADER', 'MAIN', 'FIGCAPTION', 'DD', 'DT']);
/** Elements whose text is never content. */
const skippedTags = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'NAV', 'FOOTER', 'ASIDE', 'FORM', 'BUTTON', 'IFRAME']);

interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  readonly textContent: string | null;
  readonly childNodes: ArrayLike<DomNode>;
}

const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The text of a subtree as paragraphs: block elements break lines; scripts, navigation and forms are left out. */
function blockText(root: DomNode): string[] {
  const parts: string[] = [];
  let chars = 0;
  const walk = (node: DomNode): void => {
    if (chars > pageTextCharsMax) return;
    if (node.nodeType === 3) {
      const text = node.textContent ?? '';
      parts.push(text);
      chars += text.length;
      return;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
    const tag = node.nodeName.toUpperCase();
    if (skippedTags.has(tag)) return;
    const block = blockTags.has(tag);
    if (block) parts.push('\n');
    for (let index = 0; index < node.childNodes.length; index++) walk(node.childNodes[index]!);
    if (block) parts.push('\n');
  };
  walk(root);
  return parts
    .join('')
    .split('\n')
    .map(collapse)
    .filter((line) => line !== '');
}

function bounded(paragraphs: readonly string[]): string[] {
  const kept: string[] = [];
  let chars = 0;
  for (const paragraph of paragraphs) {
    if (chars + paragraph.length > pageTextCharsMax) break;
    kept.push(paragraph);
    chars += paragraph.length;
  }
  return kept;
}

function readHtml(html: string): Page {
  const { document } = parseHTML(html);
  const meta = (selector: string): string => collapse(document.querySelector(selector)?.getAttribute('content') ?? '');
  const headline = meta('meta[property="og:title"]') || collapse(document.querySelector('title')?.textContent ?? '') || collapse(document.querySelector('h1')?.textContent ?? '');
  const ogType = meta('meta[property="og:type"]').toLowerCase();
  const hasArticleElement = document.querySelector('article') !== null;
  const codeBlocks = document.querySelectorAll('pre, code').length;
  let paragraphs: string[] = [];
  try {
    // Readability changes the document it reads, so it gets a copy of its own.
    const article = new Readability(parseHTML(html).document as unknown as ConstructorParameters<typeof Readability>[0]).parse();
    if (article?.content && (article.textContent ?? '').length >= readabilityCharsMin) {
      paragraphs = blockText(parseHTML(`<!doctype html><html><body>${article.content}</body></html>`).document.body as unknown as DomNode);
    }
  } catch {
    // A page Readability cannot read falls back to the body's text below.
  }
  if (paragraphs.length === 0 && document.body !== null) paragraphs = blockText(document.body as unknown as DomNode);
  return { kind: 'html', headline: headline.slice(0, headlineCharsMax), paragraphs: bounded(paragraphs), ogType, hasArticleElement, codeBlocks };
}

function readText(text: string): Page {
  const paragraphs = text.split(/\r?\n/).map(collapse).filter((line) => line !== '');
  return { kind: 'text', headline: (paragraphs[0] ?? '').slice(0, headlineCharsMax), paragraphs: bounded(paragraphs.slice(1)), ogType: '', hasArticleElement: false, codeBlocks: 0 };
}

function readJson(text: string): Page {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return readText(text);
  }
  const strings: string[] = [];
  let headline = '';
  const walk = (node: unknown, key: string, depth: number): void => {
    if (strings.length >= jsonStringsMax || depth > 32) return;
    if (typeof node === 'string') {
      const line = collapse(node);
      if (headline === '' && /^(title|headline|name)$/i.test(key) && line !== '') headline = line;
      else if (line.split(' ').length >= 3) strings.push(line);
    } else if (Array.isArray(node)) {
      for (const item of node) walk(item, key, depth + 1);
    } else if (node !== null && typeof node === 'object') {
      for (const [childKey, child] of Object.entries(node)) walk(child, childKey, depth + 1);
    }
  };
  walk(value, '', 0);
  return { kind: 'json', headline: headline.slice(0, headlineCharsMax), paragraphs: bounded(strings), ogType: '', hasArticleElement: false, codeBlocks: 0 };
}

/** The media types a page may have; anything else is refused before it is read. */
export function pageKindOf(contentType: string | undefined): PageKind | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'text/plain' || type === 'text/markdown') return 'text';
  if (type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type)) return 'json';
  return null;
}

/** Reads a page's body (UTF-8) as its kind says. */
export function readPage(kind: PageKind, body: string): Page {
  if (kind === 'html') return readHtml(body);
  if (kind === 'json') return readJson(body);
  return readText(body);
}
