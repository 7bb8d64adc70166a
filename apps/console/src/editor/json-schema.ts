/** The JSON Schema subset the API's node-type schemas use. */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  allOf?: Array<{ if?: JsonSchema; then?: JsonSchema }>;
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  /** A string of code: `text/javascript` is drawn as a code editor. */
  contentMediaType?: string;
  examples?: unknown[];
}

/** A property's name as a label: `databaseId` becomes `Database`. */
export const humanize = (name: string) =>
  name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/^./, (first) => first.toUpperCase())
    .replace(/ Id$/, '');

/** A description without its Markdown code marks. */
export const plain = (text: string | undefined) => text?.replace(/`/g, '');

/** Properties that a conditional (`allOf: [{if, then}]`) brings in only when its `if` holds. */
export function visibleProperties(schema: JsonSchema, value: Record<string, unknown>): string[] {
  const conditional = new Map<string, boolean>();
  for (const rule of schema.allOf ?? []) {
    const holds = Object.entries(rule.if?.properties ?? {}).every(
      ([key, condition]) => condition.const === undefined || value[key] === condition.const,
    );
    for (const key of Object.keys(rule.then?.properties ?? {})) {
      conditional.set(key, (conditional.get(key) ?? false) || holds);
    }
  }
  return Object.keys(schema.properties ?? {}).filter(
    (key) => !conditional.has(key) || conditional.get(key) || value[key] !== undefined,
  );
}
