import type { ModelAttributeColumnOptions, ModelAttributes, QueryInterface, QueryInterfaceCreateTableOptions, QueryInterfaceIndexOptions, QueryOptions } from 'sequelize';

/**
 * The QueryInterface the migrations get (db/migrator.ts). MySQL commits each DDL statement on its own, so a
 * migration that fails halfway leaves its first steps behind and is still pending: run again, it must not trip over
 * them. Each schema step here first checks whether it is already done (a table, a column or a named index that
 * exists, or one already gone) and then does nothing. Data steps are written to be repeatable in the migrations
 * themselves (a backfill first empties the table it fills). On SQLite the same checks cost little.
 */
export function rerunnable(qi: QueryInterface): QueryInterface {
  const columns = async (table: string) => Object.keys(await qi.describeTable(table));
  const indexNames = async (table: string): Promise<string[]> => {
    const indexes: unknown = await qi.showIndex(table);
    return Array.isArray(indexes) ? indexes.map((index: { name: string }) => index.name) : [];
  };

  // The steps as the migrations call them: tables by name, indexes by name.
  const steps = new Map<PropertyKey, unknown>(
    Object.entries({
      async createTable(table: string, attributes: ModelAttributes, options?: QueryInterfaceCreateTableOptions) {
        if (!(await qi.tableExists(table))) await qi.createTable(table, attributes, options);
      },
      async dropTable(table: string, options?: QueryOptions) {
        if (await qi.tableExists(table)) await qi.dropTable(table, options);
      },
      async renameTable(before: string, after: string, options?: QueryOptions) {
        // Done already when only the new name is there.
        if ((await qi.tableExists(before)) || !(await qi.tableExists(after))) await qi.renameTable(before, after, options);
      },
      async addColumn(table: string, column: string, attributes: ModelAttributeColumnOptions, options?: QueryOptions) {
        if (!(await columns(table)).includes(column)) await qi.addColumn(table, column, attributes, options);
      },
      async removeColumn(table: string, column: string, options?: QueryOptions) {
        if ((await columns(table)).includes(column)) await qi.removeColumn(table, column, options);
      },
      async addIndex(table: string, fields: string[], options: QueryInterfaceIndexOptions & { name: string }) {
        if (!(await indexNames(table)).includes(options.name)) await qi.addIndex(table, fields, options);
      },
      async removeIndex(table: string, name: string, options?: QueryInterfaceIndexOptions) {
        if ((await indexNames(table)).includes(name)) await qi.removeIndex(table, name, options);
      },
    }),
  );
  return new Proxy(qi, {
    get(target, property) {
      if (steps.has(property)) return steps.get(property);
      // Everything else runs on the plain QueryInterface, so its own inner calls are never checked twice.
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
