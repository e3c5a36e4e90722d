/**
 * Query parameters declared once: each gives its TypeBox schema (what ajv checks and the OpenAPI document
 * shows), its reader (the bound checks that answer 422 naming the limit) and its line in the tools' docs,
 * so the docs cannot drift from what the routes accept.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { ApiError } from '../http/errors.ts';

export interface ParamDoc {
  readonly name: string;
  readonly in: 'query' | 'path';
  readonly type: 'integer' | 'string';
  readonly required: boolean;
  readonly enum?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default?: number | string;
  readonly description: string;
}

export interface Param<T> {
  readonly doc: ParamDoc;
  readonly schema: TSchema;
  read(query: Readonly<Record<string, string | undefined>>): T;
}

export function integerParam(name: string, minimum: number, maximum: number, fallback: number, description: string): Param<number> {
  return {
    doc: { name, in: 'query', type: 'integer', required: false, minimum, maximum, default: fallback, description },
    schema: Type.Optional(Type.String({ pattern: '^-?[0-9]{1,12}$', description: `${description}: ${minimum} to ${maximum} (default ${fallback})` })),
    read(query) {
      const text = query[name];
      if (text === undefined) return fallback;
      const value = Number(text);
      if (value < minimum || value > maximum) throw new ApiError(422, 'VALIDATION_FAILED', `query.${name}: must be ${minimum} to ${maximum} (the limit), got ${text}`);
      return value;
    },
  };
}

export function enumParam<T extends string>(name: string, values: readonly T[], fallback: T | undefined, description: string): Param<T | undefined> {
  return {
    doc: { name, in: 'query', type: 'string', required: false, enum: values, ...(fallback === undefined ? {} : { default: fallback }), description },
    schema: Type.Optional(Type.Union(values.map((value) => Type.Literal(value)), { description })),
    read: (query) => (query[name] as T | undefined) ?? fallback,
  };
}

export function textParam(name: string, maxLength: number, description: string): Param<string | undefined> {
  return {
    doc: { name, in: 'query', type: 'string', required: false, maximum: maxLength, description: `${description} (at most ${maxLength} characters)` },
    schema: Type.Optional(Type.String({ maxLength, description })),
    read: (query) => query[name],
  };
}

/** The query schema of a route's parameters. */
export function querySchema(params: readonly Param<unknown>[]): TSchema {
  return Type.Object(Object.fromEntries(params.map((param) => [param.doc.name, param.schema])), { additionalProperties: false });
}
