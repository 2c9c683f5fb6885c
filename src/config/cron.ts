/**
 * Cron expression checks for `schedules[].cron`, done here so a wrong expression stops the start
 * with a precise message (the scheduler's library would only say "invalid").
 *
 * Accepted: 5 fields (minute hour day-of-month month day-of-week) or 6 with leading seconds. Each
 * field is a comma-separated list of `*`, `*∕n`, `a`, `a-b` or `a-b∕n`; months may be written as
 * names (`jan`, `January`), weekdays too (`mon`, `Monday`); weekday 0 and 7 are both Sunday.
 * Not accepted (node-cron does not support them or reads them differently): `?`, `L`, `W`, `#`,
 * `@daily`-style macros and a step on a single value (`5/15` — write `5-59/15`).
 */

interface CronField {
  name: string;
  min: number;
  max: number;
  /** Short names accepted in place of numbers (months from 1, weekdays from 0). */
  names?: readonly string[];
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] as const;
const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'] as const;
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const WEEKDAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

const SECOND: CronField = { name: 'second', min: 0, max: 59 };
const MINUTE: CronField = { name: 'minute', min: 0, max: 59 };
const HOUR: CronField = { name: 'hour', min: 0, max: 23 };
const DAY_OF_MONTH: CronField = { name: 'day of month', min: 1, max: 31 };
const MONTH: CronField = { name: 'month', min: 1, max: 12, names: MONTHS };
const DAY_OF_WEEK: CronField = { name: 'day of week', min: 0, max: 7, names: WEEKDAYS };

const FIVE_FIELDS = [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK] as const;
const SIX_FIELDS = [SECOND, ...FIVE_FIELDS] as const;

/** Numeric value of one atom (`5`, `jan`, `Monday`), or an error text. */
function atomValue(atom: string, field: CronField): number | string {
  if (/^\d+$/.test(atom)) {
    const value = Number(atom);
    if (value < field.min || value > field.max) {
      return `${field.name} "${atom}" is out of range ${field.min}–${field.max}`;
    }
    return value;
  }
  const lower = atom.toLowerCase();
  if (field === MONTH) {
    const short = MONTHS.indexOf(lower as (typeof MONTHS)[number]);
    const long = MONTH_NAMES.indexOf(lower as (typeof MONTH_NAMES)[number]);
    if (short >= 0 || long >= 0) return (short >= 0 ? short : long) + 1;
    return `month "${atom}" is neither 1–12 nor a month name (jan…dec)`;
  }
  if (field === DAY_OF_WEEK) {
    const short = WEEKDAYS.indexOf(lower as (typeof WEEKDAYS)[number]);
    const long = WEEKDAY_NAMES.indexOf(lower as (typeof WEEKDAY_NAMES)[number]);
    if (short >= 0 || long >= 0) return short >= 0 ? short : long;
    return `day of week "${atom}" is neither 0–7 nor a day name (sun…sat)`;
  }
  return `${field.name} "${atom}" is not a number (${field.min}–${field.max})`;
}

/** Errors of one list element, e.g. `1-5/2`; pushes the values it selects into `selected`. */
function elementErrors(element: string, field: CronField, selected: Set<number>): string[] {
  if (element === '') return [`${field.name} has an empty list element (check the commas)`];
  const slash = element.split('/');
  if (slash.length > 2) return [`${field.name} "${element}" has more than one "/"`];
  const [base = '', stepText] = slash;
  let step = 1;
  if (stepText !== undefined) {
    if (!/^\d+$/.test(stepText) || Number(stepText) < 1 || Number(stepText) > field.max - field.min + 1) {
      return [`${field.name} step "/${stepText}" must be a whole number from 1 to ${field.max - field.min + 1}`];
    }
    step = Number(stepText);
  }
  let from: number;
  let to: number;
  if (base === '*') {
    from = field.min;
    to = field.max;
  } else {
    const dash = base.split('-');
    if (dash.length > 2 || dash.some((part) => part === '')) {
      return [`${field.name} "${element}" is not a value, a range a-b, "*" or a step */n`];
    }
    const values = dash.map((part) => atomValue(part, field));
    const errors = values.filter((value): value is string => typeof value === 'string');
    if (errors.length > 0) return errors;
    const [first, last] = values as number[];
    if (last === undefined) {
      if (stepText !== undefined) {
        return [`${field.name} "${element}": a step needs "*" or a range — write ${base}-${field.max}/${stepText}`];
      }
      selected.add(first as number);
      return [];
    }
    from = first as number;
    to = last;
    if (from > to) return [`${field.name} range "${base}" runs backwards — write the smaller value first`];
  }
  for (let value = from; value <= to; value += step) selected.add(value);
  return [];
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/**
 * Every problem of a cron expression, each phrased as what is wrong and what is allowed.
 * An empty list means the expression is valid.
 */
export function cronProblems(expression: string): string[] {
  const trimmed = expression.trim();
  if (trimmed === '') return ['is empty — write 5 fields (minute hour day-of-month month day-of-week), e.g. "0 3 * * 1-5"'];
  if (trimmed.startsWith('@')) {
    return [`macros such as "${trimmed.split(/\s+/)[0]}" are not supported — write the fields, e.g. "0 0 * * *" for daily`];
  }
  const parts = trimmed.split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6) {
    return [
      `has ${parts.length} field${parts.length === 1 ? '' : 's'} — write 5 (minute hour day-of-month month day-of-week) ` +
        'or 6 with leading seconds, e.g. "0 3 * * 1-5"',
    ];
  }
  const fields = parts.length === 6 ? SIX_FIELDS : FIVE_FIELDS;
  const problems: string[] = [];
  const selections = new Map<CronField, Set<number>>();
  parts.forEach((part, index) => {
    const field = fields[index] as CronField;
    const selected = new Set<number>();
    selections.set(field, selected);
    for (const element of part.split(',')) problems.push(...elementErrors(element, field, selected));
  });
  if (problems.length > 0) return problems;

  // A day of month that no selected month has (e.g. "0 0 31 2 *") would never fire.
  const days = selections.get(DAY_OF_MONTH);
  const months = selections.get(MONTH);
  const weekdayIsAny = parts[parts.length - 1] === '*';
  if (days && months && weekdayIsAny) {
    const possible = [...months].some((month) => [...days].some((day) => day <= (DAYS_IN_MONTH[month - 1] ?? 31)));
    if (!possible) return ['never fires: no selected month has the selected day of month'];
  }
  return [];
}
