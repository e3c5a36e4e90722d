/**
 * The support agents' use of the optional model provider (shell/llm/provider.ts, LLM_* settings): it
 * rewords the retrieved passages into an answer. The model sees the question and the quoted passages only,
 * and is told to answer from them alone; the citations stay those of the passages. The passages sent are
 * bounded (`promptCharsMax`) and so is the answer kept (`modelAnswerCharsMax`); the provider bounds the
 * call (deadline, tokens, bytes). Any failure is thrown, and the caller answers extractively.
 */
import type { ChatProvider } from '../llm/provider.ts';

/** Characters of passages sent at most, and of one passage. */
export const promptCharsMax = 8000;
export const promptPassageCharsMax = 2000;
/** Characters of the model's answer kept at most. */
export const modelAnswerCharsMax = 2000;

export interface PromptPassage {
  readonly document: string;
  readonly section: string;
  readonly text: string;
}

const instructions =
  'You answer questions about a trading platform. Use only the numbered passages given; if they do not answer the question, say so. ' +
  'Be brief and precise, keep route paths and field names exactly as written, and do not invent facts.';

/** The passages as the prompt shows them, numbered, within the prompt's bound. */
export function promptOf(question: string, passages: readonly PromptPassage[]): string {
  const blocks: string[] = [];
  let length = 0;
  for (const [index, passage] of passages.entries()) {
    const block = `[${index + 1}] ${passage.document} (${passage.section})\n${passage.text.slice(0, promptPassageCharsMax)}`;
    if (length + block.length > promptCharsMax) break;
    blocks.push(block);
    length += block.length;
  }
  return `Question: ${question}\n\nPassages:\n\n${blocks.join('\n\n')}`;
}

/** The model's wording of an answer from `passages`; throws (ProviderError) on any failure. */
export async function phraseAnswer(provider: ChatProvider, question: string, passages: readonly PromptPassage[]): Promise<string> {
  const text = await provider.complete([
    { role: 'system', content: instructions },
    { role: 'user', content: promptOf(question, passages) },
  ]);
  return text.length <= modelAnswerCharsMax ? text : `${text.slice(0, modelAnswerCharsMax - 1)}…`;
}
