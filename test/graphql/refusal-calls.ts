/** Calls of /graphql for the tests of its refusals (`extensions.field`), as a tenant's admin unless told otherwise. */
import type { Harness } from '../harness.js';

export interface GqlError {
  message: string;
  extensions: { code: string; field?: string };
}

/** `gql`, `refusal` and `created` for the harness and token that `current` gives once beforeAll has set them. */
export function refusalCalls(current: () => { h: Harness; token: string }) {
  const gql = async (query: string, variables: Record<string, unknown> = {}, bearer = current().token) => {
    const r = await current().h.request('POST', '/graphql', { token: bearer, body: { query, variables } });
    return r.body as { data?: Record<string, { id: string } | null> | null; errors?: GqlError[] };
  };

  /** The one error of `query`: its message and extensions. */
  const refusal = async (query: string, variables: Record<string, unknown> = {}, bearer?: string) => {
    const { errors } = await gql(query, variables, bearer);
    expect(errors).toHaveLength(1);
    return { message: errors![0].message, ...errors![0].extensions };
  };

  /** The id of what `query` made. */
  const created = async (query: string, variables: Record<string, unknown> = {}) => {
    const { data, errors } = await gql(query, variables);
    expect(errors).toBeUndefined();
    return Object.values(data!)[0]!.id;
  };

  return { gql, refusal, created };
}
