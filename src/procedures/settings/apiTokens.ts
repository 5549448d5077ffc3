import { z } from 'zod';
import { router } from '../init';
import { settingsProcedure } from '../init';
import { createToken } from '../../auth/tokens/apiTokens';
import { listTokens, revokeToken } from '../../auth/tokens/everyKind';
import { userActor } from '../../persistence/changes/auditRecord';
import { idParam } from '../../wire/query';
import { label } from './inputs';

const DAY_MS = 86_400_000;

/** The signed-in user's own API tokens ("Generate New Token" in the spec): the value is returned once, at creation. */
export const apiTokensRouter = router({
  list: settingsProcedure.query(async ({ ctx }) => (await listTokens(ctx.settings.principal.userId)).filter((t) => t.kind === 'api')),

  create: settingsProcedure
    .input(
      z.strictObject({
        name: label('token'),
        expires_in_days: z.number({ error: 'expires_in_days must be a whole number of days' }).int().min(1).max(3650, { error: 'expires_in_days must be at most 3650' }).nullable().default(90),
        organization_ids: z.array(idParam('organization_ids')).max(50).default([]),
        team_ids: z.array(idParam('team_ids')).max(50).default([]),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const now = new Date();
      const { userId } = ctx.settings.principal;
      return createToken(
        {
          user: userId,
          name: input.name,
          expiresAt: input.expires_in_days === null ? null : new Date(now.getTime() + input.expires_in_days * DAY_MS),
          organizationIds: input.organization_ids,
          teamIds: input.team_ids,
          actor: userActor(userId),
        },
        now,
      );
    }),

  revoke: settingsProcedure.input(z.strictObject({ token_id: idParam('token_id') })).mutation(async ({ ctx, input }) => {
    const { userId } = ctx.settings.principal;
    return revokeToken(input.token_id, { actor: userActor(userId), within: { userId } });
  }),
});
