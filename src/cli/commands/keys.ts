import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import { generateKey, hashKey, keyHint } from '../../auth/keys.ts';
import { parseOrigin } from '../../auth/origins.ts';
import type { Plan } from '../../auth/plans.ts';
import type { StoredKey } from '../../auth/store.ts';
import { UNLIMITED } from '../../auth/gate.ts';
import { limitsClock } from '../../auth/config.ts';
import { windowAt } from '../../auth/windows.ts';
import { CliError, notFound } from '../errors.ts';
import { json } from '../format.ts';
import { printList, type ListOptions } from '../listing.ts';
import { chooseFormat, note, outputOptions, printRecord, type OutputFlags } from '../output.ts';
import { plansFor, withState } from '../limits.ts';
import { limitsOptions, type LimitsCliOptions } from '../limits-options.ts';

interface KeysOptions extends LimitsCliOptions {
  json?: boolean;
}

function keyId(text: string): number {
  if (!/^\d{1,15}$/.test(text)) throw new CliError(`the key id must be a whole number as \`hcas keys list\` shows it, got ${text}`);
  return Number(text);
}

/** A key as `list` and `--json` show it: never the key, only its last 4 characters. */
function shown(key: StoredKey) {
  const limits = key.restrictions;
  return {
    id: key.id,
    name: key.name,
    plan: key.plan,
    created: key.createdAt,
    revoked: key.revokedAt,
    hint: `...${key.hint}`,
    widget_only: limits?.widgetOnly ?? false,
    origins: limits?.origins ?? [],
  };
}

/** Collects a repeatable flag's values. */
const collect = (value: string, previous: string[]) => [...previous, value];

function print(io: CommandIo, options: KeysOptions, value: unknown, text: () => string): void {
  io.stdout.write(options.json ? json(value) : text());
}

/** `hcas keys create|list|revoke|usage`: the admin side of API keys. */
export function registerKeys(program: Command, io: CommandIo): void {
  const keys = program
    .command('keys')
    .description(
      'Create, list, revoke API keys and show their usage (state: --state-file FILE, $REDIS_URL, $HCAS_STATE or var/state.sqlite)',
    )
    .addHelpText(
      'after',
      [
        '',
        'A key is shown once, when it is created; the state keeps only its SHA-256 hash and last 4 characters.',
        'Servers notice a revocation within 5 seconds.',
        '',
        'Examples:',
        '  hcas keys create --plan professional --name "Acme Realty"',
        '  hcas keys create --plan business --name "Acme widget" --widget-only --origin https://acme.example --origin https://*.acme.example',
        '  hcas keys list',
        '  hcas keys usage 1',
        '  hcas keys revoke 1',
      ].join('\n'),
    );

  registerCreate(keys, io);
  registerList(keys, io);
  registerRevoke(keys, io);
  registerUsage(keys, io);
}

/** `hcas keys create`: a new key on a plan, printed once (only its hash is stored). */
function registerCreate(keys: Command, io: CommandIo): void {
  limitsOptions(keys.command('create').description('Create a key on a plan and print it (once: only its hash is stored)'))
    .requiredOption('--plan <id>', 'plan id from the plan file, e.g. free, professional, business, enterprise')
    .requiredOption('--name <text>', 'who the key is for, e.g. "Acme Realty"')
    .option('--widget-only', "a widget key, for a page's HTML: it opens only widget-score/{zip}/ (needs --origin)")
    .option(
      '--origin <origin>',
      'page origin that may use the key (checked against Origin, else Referer), e.g. https://example.org or https://*.example.org; repeat for several',
      collect,
      [],
    )
    .option('--json', 'print the new key and its fields as JSON')
    .action(async (options: KeysOptions & { plan: string; name: string; widgetOnly?: boolean; origin: string[] }) => {
      const planSet = plansFor(options, io.env);
      const plan = planSet.plans.find((p) => p.id === options.plan);
      if (!plan)
        throw new CliError(`--plan must be one of ${planSet.plans.map((p) => p.id).join(', ')} (${planSet.name}), got ${options.plan}`);
      const name = options.name.trim();
      if (name.length < 1 || name.length > 200) throw new CliError(`--name must be 1 to 200 characters, got ${name.length}`);
      let origins: string[];
      try {
        origins = [...new Set(options.origin.map(parseOrigin))];
      } catch (error) {
        throw new CliError((error as Error).message);
      }
      if (options.widgetOnly && origins.length === 0) {
        throw new CliError(
          '--widget-only needs the page origins that may use the key: add --origin https://your.site (repeat it for several)',
        );
      }
      const restrictions = options.widgetOnly || origins.length > 0 ? { origins, widgetOnly: Boolean(options.widgetOnly) } : null;
      const key = generateKey();
      const stored = await withState(options, io.env, (store) =>
        store.addKey(hashKey(key), { name, plan: plan.id, hint: keyHint(key), createdAt: new Date().toISOString(), restrictions }),
      );
      if (options.json) {
        print(io, options, { ...shown(stored), key }, () => '');
      } else {
        // The key alone on stdout, so `KEY=$(hcas keys create ...)` works; the rest is for the person.
        io.stdout.write(`${key}\n`);
        const limited = restrictions
          ? `, ${restrictions.widgetOnly ? 'widget endpoints only' : 'every endpoint of its plan'}, from ${origins.join(', ')}`
          : '';
        io.stderr.write(
          `created key ${stored.id} for ${name} on the ${plan.name} plan (${quotaText(plan)}${limited}); store it now: it is not shown again\n`,
        );
      }
    });
}

/** `hcas keys list`: every key, never the key itself. */
function registerList(keys: Command, io: CommandIo): void {
  const list = limitsOptions(keys.command('list').description('List keys: id, name, plan, created, revoked, last 4 characters'), {
    plans: false,
  });
  outputOptions(list).action(async (options: KeysOptions & OutputFlags) => {
    const rows = (await withState(options, io.env, (store) => store.listKeys())).map(shown);
    const withLimits = rows.some((row) => limitsText(row) !== '');
    const spec = {
      noun: ['key', 'keys'] as [string, string],
      tableColumns: columns(withLimits),
      fields: ['id', 'name', 'plan', 'created', 'revoked', 'hint', 'widget_only', 'origins'],
    };
    if (rows.length === 0) note(io, 'no keys yet: create one with `hcas keys create --plan free --name NAME`');
    const table = chooseFormat(options, io) === 'table';
    await printList(io, spec, table ? rows.map((row) => ({ ...row, limits: limitsText(row) })) : rows, options as ListOptions);
  });
}

/** `hcas keys revoke ID`: servers refuse the key within 5 seconds. */
function registerRevoke(keys: Command, io: CommandIo): void {
  limitsOptions(keys.command('revoke').description('Revoke a key: servers refuse it within 5 seconds'), { plans: false })
    .argument('<id>', 'key id, as `hcas keys list` shows it')
    .option('--json', 'print JSON')
    .action(async (id: string, options: KeysOptions) => {
      const revoked = await withState(options, io.env, (store) => store.revokeKey(keyId(id), new Date().toISOString()));
      if (!revoked) throw notFound(`there is no key ${id}; \`hcas keys list\` shows the ids`);
      print(
        io,
        options,
        shown(revoked),
        () => `revoked key ${revoked.id} (${revoked.name}) at ${revoked.revokedAt}; servers refuse it within 5 seconds\n`,
      );
    });
}

/** `hcas keys usage ID`: a key's calls in its current window, its limit and when the window resets. */
function registerUsage(keys: Command, io: CommandIo): void {
  outputOptions(
    limitsOptions(keys.command('usage').description("A key's calls in its current window, its limit and when the window resets")),
  )
    .argument('<id>', 'key id, as `hcas keys list` shows it')
    .action(async (id: string, options: KeysOptions & OutputFlags) => {
      const planSet = plansFor(options, io.env);
      const usage = await withState(options, io.env, async (store) => {
        const key = await store.getKey(keyId(id));
        if (!key) throw notFound(`there is no key ${id}; \`hcas keys list\` shows the ids`);
        const plan = planSet.plans.find((p) => p.id === key.plan);
        if (!plan)
          throw new CliError(
            `key ${id} is on the plan "${key.plan}", which ${planSet.name} does not offer; pass the --plans it was created with`,
          );
        const window = windowAt(plan.window, limitsClock(io.env)());
        return { key, plan, window, calls: await store.peek(`key:${key.id}`, window) };
      });
      const { key, plan, window, calls } = usage;
      const value = {
        id: key.id,
        name: key.name,
        plan: plan.id,
        revoked: key.revokedAt,
        window: plan.window,
        window_start: new Date(window.startSeconds * 1000).toISOString(),
        calls,
        limit: plan.quota,
        remaining: plan.quota === null ? null : Math.max(0, plan.quota - calls),
        reset: window.resetSeconds,
        reset_at: new Date(window.resetSeconds * 1000).toISOString(),
      };
      const unlimited = `unlimited (the headers send ${UNLIMITED})`;
      const format = chooseFormat(options, io);
      await printRecord(
        io,
        format === 'table' ? { ...value, limit: value.limit ?? unlimited, remaining: value.remaining ?? unlimited } : value,
        format,
        options.fields,
      );
    });
}

/** The table's columns; `limits` only when some key has them. */
function columns(withLimits: boolean) {
  return ['id', 'name', 'plan', 'created', 'revoked', 'hint', ...(withLimits ? ['limits'] : [])].map((key) => ({ key }));
}

function limitsText(row: ReturnType<typeof shown>): string {
  if (!row.widget_only && row.origins.length === 0) return '';
  return `${row.widget_only ? 'widget only' : 'all endpoints'}${row.origins.length ? `; ${row.origins.join(' ')}` : ''}`;
}

function quotaText(plan: Plan): string {
  return plan.quota === null
    ? `unlimited calls, counted per ${plan.window}`
    : `${plan.quota.toLocaleString('en-US')} calls per ${plan.window}`;
}
