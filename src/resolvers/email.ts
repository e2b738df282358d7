/** Outgoing e-mail: queueing a message (src/domain/emails.ts); reads come from src/resources/email.ts. Who may call each: schema/email.graphql. */
import type { AppContext } from '../context.js';
import { queueEmail } from '../domain/emails.js';

export const resolvers = {
  Mutation: {
    sendEmail: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: AppContext) => {
      await queueEmail(ctx, input);
      return { success: true };
    },
  },
};
