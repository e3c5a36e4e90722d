/**
 * The support agents (a ShellModule of two routes):
 *
 *   POST /api/v1/support/ai-agent            ask_support_agent: answers from the platform's documents
 *   POST /api/v1/support/ai-agent/investor   ask_investor_agent: figures computed from the live ledger,
 *                                            and the same documents for narrative questions
 *
 * Body `{question, context?}`: the question 1 to `questionCharsMax` characters and not blank; the context
 * an optional string (at most `contextCharsMax`) or a flat object (at most `contextKeysMax` keys of short
 * strings, numbers or booleans) whose words join the search at half weight (a page the user is on, a pair).
 * No credentials; the `calculator` rate class (60 requests a minute per client address, keyed or not),
 * since every question runs a search.
 *
 * The index (retrieval.ts) is built once, at the module's start, from README.md, docs/**.md, the OpenAPI
 * document of the final route table and llms.txt (corpus.ts). The answer is extractive; when a model
 * provider is configured (settings.ts), it rewords the quoted passages, and any failure of it falls back to
 * the extractive answer. `analyzer` says which answered.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ApiError } from '../http/errors.ts';
import { declareRoute, type Reply, type RouteTable } from '../http/route-table.ts';
import type { ShellModule } from '../shell-module.ts';
import type { ShellContext } from '../context.ts';
import { openApiDocument } from '../discovery/openapi.ts';
import { llmsText } from '../discovery/llms.ts';
import { llmsPassages, numbered, openApiPassages, repositoryPassages, repositoryRoot } from './corpus.ts';
import { noAnswerSuggestions, SupportIndex, termsOf, type Citation, type ExtractiveAnswer } from './retrieval.ts';
import { factsAskedFor, factsText, InvestorFacts } from './facts.ts';
import { phraseAnswer } from './provider.ts';
import { supportSettings, type SupportSettings } from './settings.ts';

export const questionCharsMax = 2000;
export const contextCharsMax = 1000;
export const contextKeysMax = 20;
export const contextValueCharsMax = 200;

const askBody = Type.Object(
  {
    question: Type.String({ minLength: 1, maxLength: questionCharsMax }),
    context: Type.Optional(
      Type.Union([
        Type.String({ maxLength: contextCharsMax }),
        Type.Object({}, { additionalProperties: Type.Union([Type.String({ maxLength: contextValueCharsMax }), Type.Number(), Type.Boolean()]), maxProperties: contextKeysMax }),
      ]),
    ),
  },
  { additionalProperties: false },
);
type AskBody = Static<typeof askBody>;

const citation = Type.Object({
  document: Type.String({ description: 'README.md, docs/…, llms.txt, openapi:<operationId>, or ledger:<fact> for a computed figure' }),
  section: Type.String({ description: 'the heading path, the operation (tag > METHOD path), or the source of a figure' }),
  score: Type.Number({ description: 'BM25 score of the passage (1 for a computed figure)' }),
});
const answerFields = {
  question: Type.String(),
  answered: Type.Boolean({ description: 'false: nothing in the documents matched; `answer` says so and `suggestions` say where to look' }),
  answer: Type.String(),
  analyzer: Type.Union([Type.Literal('extractive'), Type.Literal('model')]),
  citations: Type.Array(citation),
  suggestions: Type.Array(Type.String()),
};
const supportAnswer = Type.Object(answerFields);
const fact = Type.Object({
  name: Type.String(),
  label: Type.String(),
  value: Type.String({ description: 'a decimal string with the asset’s decimals, or a count' }),
  unit: Type.String({ description: 'the asset symbol of an amount, or count' }),
  source: Type.String(),
  as_of: Type.String({ description: 'ISO 8601 UTC time the figure was computed' }),
});
const investorAnswer = Type.Object({
  ...answerFields,
  statement: Type.String({ description: 'where the figures come from and when they were computed' }),
  as_of: Type.String(),
  facts: Type.Array(fact),
});

/** The words of the request's context, as one text. */
function contextText(context: AskBody['context']): string {
  if (context === undefined) return '';
  if (typeof context === 'string') return context;
  return Object.entries(context)
    .map(([key, value]) => `${key} ${String(value)}`)
    .join(' ');
}

function questionOf(body: AskBody): string {
  const question = body.question.trim();
  if (question === '') throw new ApiError(422, 'VALIDATION_FAILED', 'body.question: must not be blank');
  return question;
}

/** README.md, docs/**.md, the OpenAPI document of the final table, and llms.txt. */
export function buildSupportIndex(table: RouteTable, root = repositoryRoot): SupportIndex {
  // The documents as a client sees them from the service's own origin ('/' and a relative base).
  const drafts = [...repositoryPassages(root), ...openApiPassages(openApiDocument(table, { serverUrl: '/' })), ...llmsPassages(llmsText(table, ''))];
  return new SupportIndex(numbered(drafts));
}

class SupportAgents {
  private index: SupportIndex | null = null;
  readonly facts: InvestorFacts;

  constructor(
    private readonly context: ShellContext,
    private readonly settings: SupportSettings,
  ) {
    this.facts = new InvestorFacts(context);
  }

  async start(table: RouteTable): Promise<void> {
    this.index = buildSupportIndex(table);
    const documents = new Set(this.index.passages.map((passage) => passage.document.startsWith('openapi:') ? 'openapi' : passage.document));
    this.context.log('support_index_built', { passages: this.index.passages.length, documents: [...documents] });
  }

  private ready(): SupportIndex {
    if (this.index === null) throw new ApiError(503, 'UNAVAILABLE', 'the support index is not built yet');
    return this.index;
  }

  /** The extractive answer, reworded by the model when one is configured and answers. */
  async answer(question: string, context: string): Promise<{ found: ExtractiveAnswer; text: string; analyzer: 'extractive' | 'model' }> {
    const found = this.ready().answer(question, context);
    const provider = this.settings.provider;
    if (!found.answered || provider === null) return { found, text: found.text, analyzer: 'extractive' };
    try {
      const passages = found.passages.map((item) => ({ document: item.passage.document, section: item.passage.section, text: item.passage.text }));
      return { found, text: await phraseAnswer(provider, question, passages), analyzer: 'model' };
    } catch (error) {
      this.context.log('support_model_failed', { error: error instanceof Error ? error.message : String(error) });
      return { found, text: found.text, analyzer: 'extractive' };
    }
  }
}

function answerBody(question: string, answered: boolean, answer: string, analyzer: 'extractive' | 'model', citations: readonly Citation[]) {
  return { question, answered, answer, analyzer, citations: [...citations], suggestions: answered ? [] : [...noAnswerSuggestions] };
}

export const supportModule: ShellModule = {
  name: 'support',
  create(context) {
    const agents = new SupportAgents(context, supportSettings(context.config.env));
    const common = {
      method: 'POST' as const,
      tags: ['Support'],
      auth: 'none' as const,
      rateLimit: 'calculator' as const,
      status: 200,
      errors: ['VALIDATION_FAILED', 'RATE_LIMITED'],
      body: askBody,
    };
    const support = declareRoute({
      ...common,
      path: '/api/v1/support/ai-agent',
      name: 'ask_support_agent',
      response: supportAnswer,
      summary:
        'Ask the support agent a question about the platform: an answer quoted from README, docs, the OpenAPI document and llms.txt (full-text retrieval), with citations; answered: false with suggestions when nothing matches',
      handler: async (request): Promise<Reply> => {
        const question = questionOf(request.body);
        const { found, text, analyzer } = await agents.answer(question, contextText(request.body.context));
        return { body: answerBody(question, found.answered, text, analyzer, found.citations) };
      },
    });
    const investor = declareRoute({
      ...common,
      path: '/api/v1/support/ai-agent/investor',
      name: 'ask_investor_agent',
      response: investorAnswer,
      summary:
        'Ask the investor agent: trading volume (24h, all time), trades, fees collected, registered users and resting orders computed from the live ledger with their source and time, and document answers for other questions',
      handler: async (request): Promise<Reply> => {
        const question = questionOf(request.body);
        // Read-your-writes, as the history routes do: the figures cover every command durable when asked.
        await context.readModels.whenApplied(context.durable.sequencer.durableSeq);
        const { facts, asOf } = agents.facts.facts();
        const statement = `Figures are computed from the platform's live ledger (its durable records: the read models, the tickers, the identity store and the order books) at ${asOf}, not estimated.`;
        const asked = factsAskedFor(termsOf(question), facts);
        if (asked.length > 0) {
          const citations = asked.map((item) => ({ document: `ledger:${item.name}`, section: item.source, score: 1 }));
          return { body: { ...answerBody(question, true, factsText(asked, asOf), 'extractive', citations), statement, as_of: asOf, facts } };
        }
        const { found, text, analyzer } = await agents.answer(question, contextText(request.body.context));
        return { body: { ...answerBody(question, found.answered, text, analyzer, found.citations), statement, as_of: asOf, facts } };
      },
    });
    return {
      routes: [support, investor],
      tags: {
        Support:
          'Questions answered from the platform\'s own documents (README, OpenAPI, llms.txt, SKILL.md) with citations, and investor figures computed from the ledger.',
      },
      start: (table) => agents.start(table),
      close: () => agents.facts.close(),
    };
  },
};
