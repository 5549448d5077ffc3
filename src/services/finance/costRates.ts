import { Op, Transaction } from 'sequelize';
import { COST_SUBJECTS, CostRate, CostSubject, Organization, OrganizationMembership, User, UserEmail } from '../../../db/models';
import type { ChangeRunner } from '../../persistence/changes/change';
import { conflict, invalid, notFound } from '../../errors';
import { Actor, OPERATOR } from '../../persistence/changes/auditRecord';
import { normalizeEmail } from '../people/profile';
import type { ProviderCatalog } from '../apps/catalog';
import { checkAmount, checkCurrency, checkTool, CostPer, DEFAULT_CURRENCY, PER, TOOL_COST_CURRENCY } from './costInputs';
import { aiToolNames } from '../aiUsage/toolNames';

export { DEFAULT_CURRENCY, TOOL_COST_CURRENCY } from './costInputs';
export type { CostPer } from './costInputs';

/** Which rate: the organization's default annual cost, a member's (by user id or e-mail), a tool's seat, the USD rate. */
export type CostRateTarget = { subject: 'organization' } | { subject: 'user'; user: string } | { subject: 'tool'; tool: string } | { subject: 'usd_rate' };

export interface CostRateInput {
  amount: number;
  /** ISO 4217; left out: the organization's currency (USD while it has no rates). */
  currency?: string;
}

export interface CostRateView {
  subject: CostSubject;
  /** The user id (user), the tool name (tool), '' otherwise. */
  subject_id: string;
  /** The member's e-mail for a user rate; null otherwise. */
  user_email: string | null;
  amount: number;
  per: CostPer;
  currency: string;
  created_at: Date;
  updated_at: Date;
}

interface RateKey {
  subject: CostSubject;
  subject_id: string;
  user_email: string | null;
}

const view = (rate: CostRate, userEmail: string | null): CostRateView => ({
  subject: rate.subject,
  subject_id: rate.subject_id,
  user_email: userEmail,
  amount: rate.amount,
  per: PER[rate.subject],
  currency: rate.currency,
  created_at: rate.created_at,
  updated_at: rate.updated_at,
});

/**
 * An organization's cost inputs for the financial metrics (docs/metrics.md#ai-review-and-cost-figures), set by `npm run costs`. Every rate of an
 * organization is in one currency, so figures add up without exchange rates; the AI tools' estimates, in USD,
 * are converted by the organization's `usd_rate`. Each set or unset is one change (change.ts), serialised per
 * organization by locking its row, so two rates in different currencies cannot both get in.
 */
export class CostRates {
  constructor(
    private readonly changes: ChangeRunner,
    /** The registry's providers (src/integrations/registry.ts): the AI vendors a seat price may be set for. */
    private readonly catalog: ProviderCatalog,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Async so that a refusal of the input, checked before any transaction opens, rejects like the others. */
  async set(organizationId: string, target: CostRateTarget, input: CostRateInput, actor: Actor = OPERATOR): Promise<CostRateView> {
    const amount = checkAmount(input.amount, target.subject);
    const requested = input.currency === undefined ? undefined : checkCurrency(input.currency);
    return this.changes.run(async (change) => {
      const { transaction } = change;
      await this.lockOrganization(organizationId, transaction);
      const key = await this.keyOf(organizationId, target, true, transaction);
      const where = { organization_id: organizationId, subject: key.subject, subject_id: key.subject_id };
      const own = await CostRate.findOne({ where, transaction });
      // All rows share the currency, so any other row tells it.
      const other = await CostRate.findOne({ where: { organization_id: organizationId, [Op.not]: { subject: key.subject, subject_id: key.subject_id } }, transaction });
      if (requested && other && requested !== other.currency) {
        throw conflict(
          `Organization ${organizationId}'s rates are in ${other.currency}, and an organization has one currency. ` +
            `To change it to ${requested}, unset its other rates first, then set them again in ${requested}`,
        );
      }
      const currency = requested ?? other?.currency ?? own?.currency ?? DEFAULT_CURRENCY;
      if (key.subject === 'usd_rate' && currency === TOOL_COST_CURRENCY) {
        throw invalid(
          `Organization ${organizationId}'s currency is ${TOOL_COST_CURRENCY}, the one the AI tools' cost estimates are in: ` +
            'a USD rate is for an organization whose rates are in another currency',
        );
      }
      const now = this.now();
      const was = own ? { from: { amount: own.amount, currency: own.currency } } : {};
      const rate = own
        ? await own.update({ amount, currency, updated_at: now }, { transaction })
        : await CostRate.create({ ...where, amount, currency, created_at: now, updated_at: now }, { transaction });
      change.wrote('cost_rates');
      change.audit({ organizationId, actor, action: 'cost_rate.set', target: { type: 'organization', id: organizationId }, details: { ...rateDetails(key), ...was, amount, currency } });
      return view(rate, key.user_email);
    });
  }

  /** Removes the rate and returns what it was; a rate that is not set is not found. */
  unset(organizationId: string, target: CostRateTarget, actor: Actor = OPERATOR): Promise<CostRateView> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      await this.lockOrganization(organizationId, transaction);
      // A former member's rate can go too: no membership needed, nor a tool still known.
      const key = await this.keyOf(organizationId, target, false, transaction);
      const rate = await CostRate.findOne({ where: { organization_id: organizationId, subject: key.subject, subject_id: key.subject_id }, transaction });
      if (!rate) throw notFound(`Organization ${organizationId} has no ${describe(key)} to unset`);
      await rate.destroy({ transaction });
      change.wrote('cost_rates');
      change.audit({ organizationId, actor, action: 'cost_rate.unset', target: { type: 'organization', id: organizationId }, details: { ...rateDetails(key), from: { amount: rate.amount, currency: rate.currency } } });
      return view(rate, key.user_email);
    });
  }

  /** The organization's rates: its default, then members' by e-mail, tools', and the USD rate. */
  async list(organizationId: string): Promise<CostRateView[]> {
    if (!(await Organization.findByPk(organizationId))) throw notFound(`No organization ${organizationId}`);
    const rates = await CostRate.findAll({ where: { organization_id: organizationId }, include: [{ model: User, as: 'user', attributes: ['email'], required: false }] });
    const views = rates.map((r) => view(r, r.subject === 'user' ? (r.user?.email ?? null) : null));
    const rank = (v: CostRateView) => COST_SUBJECTS.indexOf(v.subject);
    const label = (v: CostRateView) => v.user_email ?? v.subject_id;
    return views.sort((a, b) => rank(a) - rank(b) || label(a).localeCompare(label(b)));
  }

  /** Every AI tool whose use is counted, with its seat price a month (null: none set), in the organization's currency. */
  async seatPrices(organizationId: string): Promise<{ currency: string; tools: { tool: string; monthly: number | null }[] }> {
    const rates = await this.list(organizationId);
    const price = new Map(rates.filter((r) => r.subject === 'tool').map((r) => [r.subject_id, r.amount]));
    return { currency: rates[0]?.currency ?? DEFAULT_CURRENCY, tools: aiToolNames(this.catalog).map((tool) => ({ tool, monthly: price.get(tool) ?? null })) };
  }

  /** The currency of the organization's rates: USD while it has none. */
  async currencyOf(organizationId: string): Promise<string> {
    return (await CostRate.findOne({ where: { organization_id: organizationId }, attributes: ['currency'] }))?.currency ?? DEFAULT_CURRENCY;
  }

  private async lockOrganization(organizationId: string, transaction: Transaction): Promise<void> {
    if (!(await Organization.findByPk(organizationId, { transaction, lock: transaction.LOCK.UPDATE }))) throw notFound(`No organization ${organizationId}`);
  }

  private async keyOf(organizationId: string, target: CostRateTarget, setting: boolean, transaction: Transaction): Promise<RateKey> {
    switch (target.subject) {
      case 'organization':
      case 'usd_rate':
        return { subject: target.subject, subject_id: '', user_email: null };
      case 'tool':
        return { subject: 'tool', subject_id: setting ? checkTool(target.tool, this.catalog) : target.tool, user_email: null };
      case 'user': {
        const user = await findUser(target.user, transaction);
        if (setting) {
          const membership = await OrganizationMembership.findOne({ where: { organization_id: organizationId, user_id: user.id }, transaction });
          if (!membership) throw invalid(`${target.user} is not a member of organization ${organizationId}; a cost is set for members only`);
        }
        return { subject: 'user', subject_id: user.id, user_email: user.email };
      }
    }
  }
}

/** Which rate an audit entry is about: never more of a member than their id. */
const rateDetails = (key: RateKey) => ({ subject: key.subject, subject_id: key.subject_id });

/** By id, or by any of the user's e-mail addresses, whatever their case. */
async function findUser(ref: string, transaction: Transaction): Promise<User> {
  const byEmail = ref.includes('@');
  const email = normalizeEmail(ref);
  const user = byEmail ? await User.findOne({ where: { email }, transaction }) : await User.findByPk(ref, { transaction });
  const address = !user && byEmail ? await UserEmail.findOne({ where: { email }, transaction }) : null;
  const found = user ?? (address ? await User.findByPk(address.user_id, { transaction }) : null);
  if (!found) throw notFound(`No user ${ref}`);
  return found;
}

const describe = (key: RateKey): string =>
  key.subject === 'user'
    ? `annual cost for ${key.user_email ?? key.subject_id}`
    : key.subject === 'tool'
      ? `seat price for ${key.subject_id}`
      : key.subject === 'usd_rate'
        ? 'USD rate'
        : 'default annual cost';
