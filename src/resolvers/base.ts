/** The root fields of schema/base.graphql that no resource owns. */
export const resolvers = {
  Mutation: {
    /** Does nothing: it keeps the Mutation type from being empty. */
    noop: () => null,
  },
};
