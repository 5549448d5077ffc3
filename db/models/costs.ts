import { DataTypes, Model, Sequelize, InferAttributes, InferCreationAttributes, NonAttribute } from 'sequelize';
import type { User } from './people';
import { REF, TIMESTAMP } from './types';

/** What a cost rate is of; `subject_id` says which user or tool, '' for the others. */
export type CostSubject = 'organization' | 'user' | 'tool' | 'usd_rate';
export const COST_SUBJECTS: readonly CostSubject[] = ['organization', 'user', 'tool', 'usd_rate'];

/**
 * One of an organization's cost inputs (docs/metrics.md#ai-review-and-cost-figures), written by src/services/finance/costRates.ts: the annual cost
 * of a member (`organization`: the default; `user`: one member's), an AI tool's monthly seat price per active user
 * (`tool`), or the value of 1 US dollar (`usd_rate`). Every rate of an organization is in its one `currency`.
 */
export class CostRate extends Model<InferAttributes<CostRate>, InferCreationAttributes<CostRate>> {
  declare organization_id: string;
  declare subject: CostSubject;
  declare subject_id: string;
  /** MySQL hands DECIMAL back as a string; the getter makes it the number SQLite gives. */
  declare amount: number;
  declare currency: string;
  declare created_at: Date;
  declare updated_at: Date;
  /** The member of a user rate, when included. */
  declare user?: NonAttribute<User>;
}

export function initCosts(sequelize: Sequelize): void {
  CostRate.init(
    {
      organization_id: { ...REF, primaryKey: true },
      subject: { type: DataTypes.STRING(16), allowNull: false, primaryKey: true },
      subject_id: { type: DataTypes.STRING(64), allowNull: false, primaryKey: true, defaultValue: '' },
      amount: {
        type: DataTypes.DECIMAL(14, 4),
        allowNull: false,
        get() {
          return Number(this.getDataValue('amount'));
        },
      },
      currency: { type: DataTypes.CHAR(3), allowNull: false },
      created_at: { ...TIMESTAMP },
      updated_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'cost_rates', modelName: 'cost_rate' },
  );
}
