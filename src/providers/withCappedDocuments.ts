import { fetchDocument } from "./local/fetchDocument.js";
import type { SessionProxy } from "./local/localProvider.js";
import type { BrowserProvider, DocumentRequest, OpenSessionOptions, ProviderSession, SessionScope } from "./providerTypes.js";

export interface CappedDocumentsOptions {
  /** The egress proxy for one task's scope (the same one local sessions get). */
  proxyForSession: (scope: SessionScope) => Promise<SessionProxy>;
  /** ERRAND_MAX_DOCUMENT_BYTES. */
  maxDocumentBytes: number;
}

/** What a session may reach when the caller did not say: no operator allowance, no writes. */
const NARROWEST_SCOPE: SessionScope = { hosts: [], readOnly: true };

/**
 * Gives a provider's sessions errand's capped document fetcher when they have none (the cloud
 * adapters). errand fetches main-frame documents in its own process whatever the provider; without
 * this, Playwright's route.fetch would hold each whole body in memory (one 2 GB page pushed errand to
 * 7 GB) and dial whatever the site's name resolves to at that moment. With it, each document is
 * streamed and capped (document_too_large past the cap) and goes out through an egress proxy for the
 * task's scope, so errand's own fetches get the same connect-time checks as a local browser's. The
 * cloud browser itself is not behind that proxy; its subresources still go out on the provider's network.
 */
export function withCappedDocuments(provider: BrowserProvider, options: CappedDocumentsOptions): BrowserProvider {
  return {
    name: provider.name,
    ...(provider.kind === undefined ? {} : { kind: provider.kind }),
    missingConfiguration: () => provider.missingConfiguration(),
    shutdown: () => provider.shutdown(),
    // A program's documents load in the provider's browser: program mode has no errand-side fetch to cap (docs/SECURITY.md).
    ...(provider.programDialect === undefined || provider.runProgram === undefined
      ? {}
      : { programDialect: provider.programDialect, runProgram: provider.runProgram.bind(provider) }),
    async openSession(open: OpenSessionOptions): Promise<ProviderSession> {
      const session = await provider.openSession(open);
      if (session.fetchDocument !== undefined) return session;
      let proxy: SessionProxy;
      try {
        proxy = await options.proxyForSession(open.scope ?? NARROWEST_SCOPE);
      } catch (error) {
        await session.release();
        throw error;
      }
      const capped: ProviderSession = {
        ...session,
        egressBlocked: () => [...(session.egressBlocked?.() ?? []), ...proxy.blocked()],
        fetchDocument: (request: DocumentRequest) =>
          fetchDocument(request, { proxyUrl: proxy.server, maxBytes: options.maxDocumentBytes, timeoutMs: open.budgetMs }),
        async release() {
          try {
            await session.release();
          } finally {
            await proxy.close().catch(() => undefined);
          }
        },
      };
      return capped;
    },
  };
}
