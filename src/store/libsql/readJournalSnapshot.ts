import type { JournalSnapshot } from "../Store.js";
import { headIn, SELECT_HEAD } from "./journalHead.js";
import type { LibsqlContext } from "./libsqlContext.js";
import { checkpointRead, journalEventsRead, operationEventCountRead, operationStatesRead, tombstonesRead } from "./queries/journalReads.js";

/** Large enough to read every row of a table as one page. */
const EVERYTHING = Number.MAX_SAFE_INTEGER;

/**
 * The journal as it stood at one instant. A client without interactive transactions cannot hold a
 * snapshot open while `read` pages through it, so the whole journal is read by one read batch (one
 * snapshot) and the pages are served from that copy: memory grows with the journal, which compaction
 * keeps bounded.
 */
export async function readJournalSnapshot<T>(ctx: LibsqlContext, read: (source: JournalSnapshot) => Promise<T>): Promise<T> {
  const reads = {
    events: journalEventsRead(0, EVERYTHING),
    tombstones: tombstonesRead("", EVERYTHING),
    checkpoint: checkpointRead("", EVERYTHING),
    states: operationStatesRead("", EVERYTHING),
    count: operationEventCountRead(),
  };
  const [headResult, eventsResult, tombstonesResult, checkpointResult, statesResult, countResult] = await ctx.client.batch(
    [SELECT_HEAD, reads.events.statement, reads.tombstones.statement, reads.checkpoint.statement, reads.states.statement, reads.count.statement],
    "read",
  );
  const head = headIn(headResult);
  const events = reads.events.map(eventsResult);
  const tombstones = reads.tombstones.map(tombstonesResult);
  const checkpoint = reads.checkpoint.map(checkpointResult);
  const states = reads.states.map(statesResult);
  const count = reads.count.map(countResult);
  const own = events.filter((e) => e.operationId === null).sort((a, b) => a.chainSeq - b.chainSeq);
  const done = <V>(value: V): Promise<V> => Promise.resolve(value);
  return read({
    readJournalHead: () => done(head),
    readJournalEvents: (afterSeq, limit) => done(events.filter((e) => e.seq > afterSeq).slice(0, limit)),
    readJournalChain: (afterChainSeq, limit) => done(own.filter((e) => e.chainSeq > afterChainSeq).slice(0, limit)),
    countOperationEvents: () => done(count),
    readTombstones: (afterOperationId, limit) => done(tombstones.filter((t) => t.operationId > afterOperationId).slice(0, limit)),
    readCheckpoint: (afterOperationId, limit) => done(checkpoint.filter((c) => c.operationId > afterOperationId).slice(0, limit)),
    readOperationStates: (afterOperationId, limit) => done(states.filter((s) => s.operation.operationId > afterOperationId).slice(0, limit)),
    readOperationEvents: (operationId) => done(events.filter((e) => e.operationId === operationId)),
  });
}
