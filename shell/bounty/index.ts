/**
 * Bug-bounty reports (a ShellModule): reporters file reports, administrators verify them with a reward
 * amount, mark duplicates and pay; a payment is a journaled PayBounty of the rewards domain (USDC from the
 * bounty account domainUserId(11, 0) to the reporter's live account), recorded here once durable.
 *
 *   POST /api/v1/bounty/reports                        file a report (key or session)
 *   GET  /api/v1/rewards/me/bugs                       the caller's reports and totals (verified, paid, owed)
 *   POST /admin/v1/bounty/reports/{report_id}/verify   verified, with the reward amount (USDC)
 *   POST /admin/v1/bounty/reports/{report_id}/duplicate
 *   POST /admin/v1/bounty/reports/{report_id}/payment  pay: amount and reference; answered once durable
 */
import { Type } from '@sinclair/typebox';
import { domainCommand } from '../../engine/core/domain.ts';
import { Result, resultCode, resultMessage } from '../../engine/core/results.ts';
import { amountToAtoms, formatAtoms } from '../../engine/core/units.ts';
import { RewardsCommandType, RewardsResult, bountyAtomsMax, rewardsAssetSymbol, type PayBounty } from '../../engine/domains/rewards/commands.ts';
import { ApiError } from '../http/errors.ts';
import { enqueue, refuse } from '../http/exchange-orders.ts';
import { declareRoute, type Later } from '../http/route-table.ts';
import type { ShellModule } from '../shell-module.ts';
import { BountyStore, descriptionCharsMax, referenceCharsMax, reportsPerUserMax, severities, titleCharsMax, totalsOf, urlCharsMax, type ReportRow } from './store.ts';

const tags = ['Bug bounty'];
const iso = (ms: number): string => new Date(ms).toISOString();
const nullableString = Type.Union([Type.String(), Type.Null()]);
const reportSchema = Type.Object({
  report_id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  severity: Type.String(),
  url: nullableString,
  created_at: Type.String(),
  verified: Type.Boolean(),
  duplicate: Type.Boolean(),
  amount: nullableString,
  paid: Type.Boolean(),
  paid_amount: nullableString,
  paid_at: nullableString,
  payment_reference: nullableString,
});
const amountField = Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Number()], { description: `USDC, more than 0 and at most ${bountyAtomsMax / 1_000_000}` });

export const bountyModule: ShellModule = {
  name: 'bounty',
  create(context) {
    const usdc = context.markets.assetBySymbol(rewardsAssetSymbol);
    if (usdc === undefined) throw new Error(`bounties need the ${rewardsAssetSymbol} asset`);
    const store = new BountyStore(context.config.dataDir);
    const money = (atoms: number | null): string | null => (atoms === null ? null : formatAtoms(atoms, usdc));
    const json = (row: ReportRow) => ({
      report_id: String(row.id),
      title: row.title,
      description: row.description,
      severity: row.severity,
      url: row.url,
      created_at: iso(row.created_ms),
      verified: row.verified === 1,
      duplicate: row.duplicate === 1,
      amount: money(row.amount_atoms),
      paid: row.paid_atoms !== null,
      paid_amount: money(row.paid_atoms),
      paid_at: row.paid_ms === null ? null : iso(row.paid_ms),
      payment_reference: row.payment_reference,
    });
    const reportOf = (text: string | undefined): ReportRow => {
      const id = /^[0-9]{1,15}$/.test(text ?? '') ? Number(text) : 0;
      const row = id > 0 ? store.get(id) : undefined;
      if (row === undefined) throw new ApiError(404, 'REPORT_NOT_FOUND', `no bounty report ${JSON.stringify(text ?? '')}`);
      return row;
    };
    const atomsOf = (field: string, value: string | number): number => {
      const atoms = amountToAtoms(value, usdc);
      if (atoms.code !== Result.ok) refuse(field, atoms.code);
      if (atoms.value > bountyAtomsMax) throw new ApiError(422, 'VALIDATION_FAILED', `${field}: must be at most ${bountyAtomsMax / 10 ** usdc.decimals} USDC`);
      return atoms.value;
    };

    const routes = [
      declareRoute({
        method: 'POST',
        path: '/api/v1/bounty/reports',
        name: 'create_bounty_report',
        tags,
        auth: 'bearer_or_key',
        permission: 'read',
        rateLimit: 'general',
        status: 201,
        errors: ['TOO_MANY_REPORTS'],
        body: Type.Object(
          {
            title: Type.String({ minLength: 3, maxLength: titleCharsMax }),
            description: Type.String({ minLength: 10, maxLength: descriptionCharsMax }),
            severity: Type.Union(severities.map((severity) => Type.Literal(severity))),
            url: Type.Optional(Type.String({ maxLength: urlCharsMax, pattern: '^https?://[^\\s]+$' })),
          },
          { additionalProperties: false },
        ),
        response: reportSchema,
        summary: `File a bug-bounty report: title (3-${titleCharsMax}), description (10-${descriptionCharsMax}), severity ${severities.join('|')}, optional http(s) url; stored and answered 201`,
        handler: (request) => {
          const userId = request.principal!.userId;
          if (store.countOf(userId) >= reportsPerUserMax) throw new ApiError(429, 'TOO_MANY_REPORTS', `at most ${reportsPerUserMax} reports per account`);
          const body = request.body;
          return { status: 201, body: json(store.add(userId, body.title, body.description, body.severity, body.url ?? null, context.clock())) };
        },
      }),
      declareRoute({
        method: 'GET',
        path: '/api/v1/rewards/me/bugs',
        name: 'get_my_bug_rewards',
        tags,
        auth: 'bearer_or_key',
        permission: 'read',
        rateLimit: 'general',
        status: 200,
        errors: [],
        response: Type.Object({
          reports: Type.Array(reportSchema),
          totals: Type.Object({ asset: Type.String(), verified_count: Type.Integer(), verified: Type.String(), paid_count: Type.Integer(), paid: Type.String(), owed_count: Type.Integer(), owed: Type.String() }),
        }),
        summary: 'The caller\'s bounty reports (newest first) with verified, duplicate, amount, paid, paid_at and payment reference; totals verified, paid and owed (verified, non-duplicate reports with no payment record), in USDC',
        handler: (request) => {
          const rows = store.ofUser(request.principal!.userId);
          const totals = totalsOf(rows);
          return {
            body: {
              reports: rows.map(json),
              totals: {
                asset: usdc.symbol,
                verified_count: totals.verifiedCount,
                verified: formatAtoms(totals.verifiedAtoms, usdc),
                paid_count: totals.paidCount,
                paid: formatAtoms(totals.paidAtoms, usdc),
                owed_count: totals.owedCount,
                owed: formatAtoms(totals.owedAtoms, usdc),
              },
            },
          };
        },
      }),
      declareRoute({
        method: 'POST',
        path: '/admin/v1/bounty/reports/{report_id}/verify',
        name: 'admin_verify_bounty_report',
        tags,
        auth: 'admin',
        rateLimit: 'none',
        status: 200,
        errors: ['REPORT_NOT_FOUND'],
        body: Type.Object({ amount: amountField }, { additionalProperties: false }),
        response: reportSchema,
        summary: 'Mark a report verified with its reward amount (USDC)',
        handler: (request) => {
          const row = reportOf(request.params['report_id']);
          store.verify(row.id, atomsOf('body.amount', request.body.amount));
          return { body: json(store.get(row.id)!) };
        },
      }),
      declareRoute({
        method: 'POST',
        path: '/admin/v1/bounty/reports/{report_id}/duplicate',
        name: 'admin_mark_bounty_duplicate',
        tags,
        auth: 'admin',
        rateLimit: 'none',
        status: 200,
        errors: ['REPORT_NOT_FOUND'],
        response: reportSchema,
        summary: 'Mark a report a duplicate (it is then never owed)',
        handler: (request) => {
          const row = reportOf(request.params['report_id']);
          store.markDuplicate(row.id);
          return { body: json(store.get(row.id)!) };
        },
      }),
      declareRoute({
        method: 'POST',
        path: '/admin/v1/bounty/reports/{report_id}/payment',
        name: 'admin_pay_bounty_report',
        tags,
        auth: 'admin',
        rateLimit: 'none',
        status: 200,
        errors: ['REPORT_NOT_FOUND', 'REPORT_NOT_VERIFIED', 'REPORT_DUPLICATE', 'BOUNTY_ALREADY_PAID', 'BOUNTY_FUND_INSUFFICIENT'],
        body: Type.Object({ amount: amountField, reference: Type.String({ minLength: 1, maxLength: referenceCharsMax }) }, { additionalProperties: false }),
        response: reportSchema,
        summary: 'Pay a verified, non-duplicate report: a journaled PayBounty moves amount USDC from the bounty account to the reporter; recorded with reference and time once durable',
        handler: (request): Later => {
          const row = reportOf(request.params['report_id']);
          if (row.verified !== 1) throw new ApiError(409, 'REPORT_NOT_VERIFIED', 'only a verified report is paid');
          if (row.duplicate === 1) throw new ApiError(409, 'REPORT_DUPLICATE', 'a duplicate report is not paid');
          if (row.paid_atoms !== null) throw new ApiError(409, 'BOUNTY_ALREADY_PAID', 'this report has been paid');
          const amountAtoms = atomsOf('body.amount', request.body.amount);
          const pay: PayBounty = { reportId: row.id, userId: row.user_id, amountAtoms };
          return enqueue(context, request, domainCommand(RewardsCommandType.payBounty, pay), (outcome) => {
            if (outcome.result !== Result.ok) {
              const status = outcome.result === RewardsResult.bountyAlreadyPaid || outcome.result === RewardsResult.bountyFundEmpty ? 409 : 422;
              throw new ApiError(status, resultCode(outcome.result), resultMessage(outcome.result));
            }
            store.recordPayment(row.id, amountAtoms, request.body.reference, outcome.ts);
            return { body: json(store.get(row.id)!) };
          });
        },
      }),
    ];
    return { routes, close: () => store.close() };
  },
};
