/**
 * From a fetched profile page to what the rubric reads: the page's metadata (og:title, og:description,
 * JSON-LD Person, <title>, the first <h1>), its main text (Readability on a linkedom document), the main
 * text's sentences (wink-nlp), and the person the page is about: a name and a role, or nothing.
 *
 * Identification, in order, the first that gives both a name and a role: a JSON-LD Person (name, jobTitle,
 * worksFor.name); og:title, <title> or <h1> written as "Name – Role at Company", "Name, Role of Company" or
 * "Name | Role"; a sentence of the text "Name is the Role of Company" or "Name, Role of Company". A role
 * is an executive or founder title (CEO, chief executive, founder, co-founder, president, chair, managing
 * director, CTO, chief technology/scientist officer). A name is two to four capitalised words.
 */
import { parseHTML } from 'linkedom';
import { Readability } from '@mozilla/readability';
import winkNLP from 'wink-nlp';
import model from 'wink-eng-lite-web-model';

/** Characters of main text read at most (the rest of a long page is not scored). */
export const textCharsMax = 200_000;
/** Sentences kept at most. */
export const sentencesMax = 2_000;
/** Characters of one evidence sentence kept. */
export const sentenceCharsMax = 400;
/** JSON-LD blocks read at most. */
const jsonLdBlocksMax = 16;

export interface PageText {
  readonly url: string;
  readonly pageTitle: string;
  readonly description: string;
  readonly text: string;
  readonly sentences: readonly string[];
  readonly jsonLd: readonly Record<string, unknown>[];
  readonly ogTitle: string;
  readonly h1: string;
}

export interface Identity {
  readonly name: string;
  readonly title: string;
  readonly company: string;
  /** Which rule identified the person: `json_ld`, `og_title`, `title`, `h1` or `text`. */
  readonly identifiedBy: 'json_ld' | 'og_title' | 'title' | 'h1' | 'text';
}

let nlp: ReturnType<typeof winkNLP> | null = null;

/** Sentences of a text (the model is loaded once, on first use). */
export function sentencesOf(text: string): string[] {
  nlp ??= winkNLP(model);
  const sentences = nlp.readDoc(text).sentences().out() as string[];
  return sentences
    .map((sentence) => sentence.replace(/\s+/g, ' ').trim())
    .filter((sentence) => sentence.length > 0)
    .slice(0, sentencesMax);
}

function clean(value: string | null | undefined): string {
  return (value ?? '').replace(/\s+/g, ' ').trim();
}

function jsonLdObjects(value: unknown, into: Record<string, unknown>[]): void {
  if (into.length >= 64) return;
  if (Array.isArray(value)) for (const item of value) jsonLdObjects(item, into);
  else if (typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>;
    into.push(object);
    if (object['@graph'] !== undefined) jsonLdObjects(object['@graph'], into);
  }
}

/** Metadata and main text of an HTML page. */
export function pageText(html: string, url: string): PageText {
  const { document } = parseHTML(html);
  const meta = (selector: string): string => clean(document.querySelector(selector)?.getAttribute('content'));
  const ogTitle = meta('meta[property="og:title"]');
  const description = meta('meta[property="og:description"]') || meta('meta[name="description"]');
  const pageTitle = clean(document.querySelector('title')?.textContent);
  const h1 = clean(document.querySelector('h1')?.textContent);
  const jsonLd: Record<string, unknown>[] = [];
  for (const script of [...document.querySelectorAll('script[type="application/ld+json"]')].slice(0, jsonLdBlocksMax)) {
    try {
      jsonLdObjects(JSON.parse(script.textContent ?? ''), jsonLd);
    } catch {
      // A malformed block is skipped: the page's other metadata may still identify the person.
    }
  }
  // Readability changes the document it reads, so it runs after the metadata has been taken.
  let article: ReturnType<Readability['parse']> = null;
  try {
    article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], { charThreshold: 100 }).parse();
  } catch {
    // A page Readability cannot read is scored on its whole body text instead.
  }
  const main = clean(article?.textContent) || clean(document.body?.textContent);
  const text = main.slice(0, textCharsMax);
  return { url, pageTitle, description, text, sentences: sentencesOf(text), jsonLd, ogTitle, h1 };
}

const rolePattern =
  /\b(chief executive officer|chief executive|ceo|co-?founder|founder|president|executive chair(?:man|woman|person)?|chair(?:man|woman|person)?|managing director|chief technology officer|cto|chief scientist|chief ai officer)\b/i;
const namePattern = /^(?:(?:Dr|Prof|Sir|Dame)\.?\s+)?((?:[A-Z][a-zA-Z'’-]+|[A-Z]\.)(?:\s+(?:[A-Z][a-zA-Z'’-]+|[A-Z]\.)){1,3})$/;

/** A person's name: two to four capitalised words (an honorific in front is dropped). */
export function nameOf(text: string): string | null {
  const match = namePattern.exec(clean(text));
  return match === null ? null : match[1]!;
}

/** The role phrase and the company of a title text ("CEO and co-founder of Example Labs"). */
function roleOf(text: string): { title: string; company: string } | null {
  const role = rolePattern.exec(text);
  if (role === null) return null;
  const company = /\b(?:at|of)\s+([A-Z][\w&.'’-]*(?:\s+[A-Z][\w&.'’-]*){0,4})/.exec(text.slice(role.index));
  const title = clean(text.slice(0, company === null ? undefined : company.index + role.index).replace(/[,|–—-]\s*$/, '')) || role[0];
  return { title: title.slice(0, 200), company: company === null ? '' : company[1]!.replace(/[.,]$/, '') };
}

/** "Name – Role at Company", "Name, Role", "Name | Role" in a title-like text. */
function identityOfHeading(text: string, by: Identity['identifiedBy']): Identity | null {
  const parts = clean(text).split(/\s+[|–—-]\s+|,\s+|:\s+/);
  if (parts.length < 2) return null;
  const name = nameOf(parts[0]!);
  if (name === null) return null;
  const role = roleOf(parts.slice(1).join(', '));
  if (role === null) return null;
  return { name, title: role.title, company: role.company, identifiedBy: by };
}

function identityOfJsonLd(objects: readonly Record<string, unknown>[]): Identity | null {
  for (const object of objects) {
    const type = object['@type'];
    const types = Array.isArray(type) ? type : [type];
    if (!types.includes('Person')) continue;
    const name = typeof object['name'] === 'string' ? nameOf(object['name']) : null;
    const jobTitle = typeof object['jobTitle'] === 'string' ? clean(object['jobTitle']) : '';
    if (name === null || !rolePattern.test(jobTitle)) continue;
    const worksFor = object['worksFor'];
    const employer = Array.isArray(worksFor) ? worksFor[0] : worksFor;
    const company = typeof employer === 'string' ? employer : typeof employer === 'object' && employer !== null && typeof (employer as Record<string, unknown>)['name'] === 'string' ? ((employer as Record<string, unknown>)['name'] as string) : '';
    return { name, title: jobTitle.slice(0, 200), company: clean(company).slice(0, 200), identifiedBy: 'json_ld' };
  }
  return null;
}

const sentenceIdentity = new RegExp(
  String.raw`((?:[A-Z][a-zA-Z'’-]+|[A-Z]\.)(?:\s+(?:[A-Z][a-zA-Z'’-]+|[A-Z]\.)){1,3})(?:\s+is\s+(?:the\s+|a\s+)?|,\s+(?:the\s+)?)((?:[\w-]+\s+){0,3}?(?:chief executive officer|chief executive|ceo|co-?founder|founder|president|chair(?:man|woman|person)?|managing director|chief technology officer|cto)\b(?:\s+and\s+(?:co-?founder|founder|ceo|president))?)(?:\s+(?:of|at)\s+([A-Z][\w&.'’-]*(?:\s+[A-Z][\w&.'’-]*){0,4}))?`,
  'i',
);

function identityOfText(sentences: readonly string[]): Identity | null {
  for (const sentence of sentences.slice(0, 200)) {
    const match = sentenceIdentity.exec(sentence);
    if (match === null) continue;
    const name = nameOf(match[1]!);
    // The name must be written capitalised in the text itself (the pattern is case-insensitive for the role).
    if (name === null || !/^[A-Z]/.test(match[1]!)) continue;
    return { name, title: clean(match[2]).slice(0, 200), company: clean(match[3]).replace(/[.,]$/, '').slice(0, 200), identifiedBy: 'text' };
  }
  return null;
}

/** The person the page is about, or null when no rule finds both a name and a role. */
export function identify(page: PageText): Identity | null {
  return (
    identityOfJsonLd(page.jsonLd) ??
    identityOfHeading(page.ogTitle, 'og_title') ??
    identityOfHeading(page.pageTitle, 'title') ??
    identityOfHeading(page.h1, 'h1') ??
    identityOfText(page.sentences)
  );
}
