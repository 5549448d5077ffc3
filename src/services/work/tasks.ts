import { AppBoard, AppStatusOverride } from '../../../db/models';
import { invalid } from '../../errors';
import { ResultCache } from '../../persistence/query/countCache';
import { DataVersions } from '../../persistence/query/dataVersions';
import type { AccountDirectory } from './accounts';
import { StatusCategories, statusCategories } from './statusHistory';
import type { TaskSource } from './taskInput';

/**
 * A board key or provider id longer than its column is no provider's (ids are cut nowhere: two cut alike would be
 * one task): refused before anything is written, whichever translator let it through.
 */
export function storable(board: string | null, externalId: string): void {
  if (board !== null && board.length > 200) throw invalid('A board key (project, team or repository) has at most 200 characters');
  if (externalId.length > 100) throw invalid("An issue's id has at most 100 characters");
}

/** What every task of one source needs while a delivery or an import page is stored: read once. */
export interface SourceContext {
  source: TaskSource;
  categories: StatusCategories;
  /** Board key → team, for the boards mapped so far. */
  teams: Map<string, string | null>;
  accounts: AccountDirectory;
}

/** An app's boards and status overrides, as the writer reads them for every change of its tasks. */
interface AppLayout {
  categories: StatusCategories;
  teams: Map<string, string | null>;
}

const LAYOUT_TABLES = ['app_boards', 'app_status_overrides'];

/**
 * The layouts of the apps whose tasks arrive, by the versions of the boards and overrides tables: a mapping raises
 * them (on every instance before it is answered), so a change stored after it uses it, while a burst of deliveries
 * reads the layout once.
 */
const layouts = new ResultCache<AppLayout>(60_000, 1_000);

async function layoutOf(appId: string): Promise<AppLayout> {
  const versions = await DataVersions.for(AppBoard.sequelize!).of(LAYOUT_TABLES);
  return layouts.getOrCompute(`${versions}|${appId}`, async () => {
    const [overrides, boards] = await Promise.all([
      AppStatusOverride.findAll({ where: { app_id: appId }, attributes: ['status_name', 'category'], useMaster: true }),
      AppBoard.findAll({ where: { app_id: appId }, attributes: ['board_key', 'team_id'], useMaster: true }),
    ]);
    return { categories: statusCategories(new Map(overrides.map((o) => [o.status_name, o.category]))), teams: new Map(boards.map((b) => [b.board_key, b.team_id])) };
  });
}

export async function sourceContext(source: TaskSource, accounts: AccountDirectory): Promise<SourceContext> {
  return { source, ...(await layoutOf(source.appId)), accounts };
}
