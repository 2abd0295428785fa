package dev.leasehold;

import java.time.Duration;
import java.util.Optional;

/**
 * One candidate in the leader election of a name: made by {@link LockClient#leadership(String)},
 * it runs for leadership once {@link #start started}, on a thread of its own, until it
 * {@link #resign resigns} or is {@link #close closed}. At most one candidate of a name leads at a
 * time, as far as the backend's lock excludes: a term is a lease on the lock of the name.
 *
 * <p><b>Terms.</b> Each time this candidate is elected, its {@link LeadershipListener#onElected}
 * gets the term: a {@link Lease} whose {@link Lease#token() token} strictly exceeds every earlier
 * term's, of any candidate, so a resource behind a {@link FenceGuard} refuses the writes of a leader
 * that was deposed while paused. {@link Lease#lost()} of a term completes when leadership can no
 * longer be trusted: the lease was lost (local deadline passed without renewal, or another holder
 * found), or the candidate resigned or was closed (then before the lease is released); work run
 * with {@link Lease#call term.call(...)} is interrupted then. A candidate whose term was lost stays
 * in the election and is elected again when the lock is free.
 *
 * <p><b>Leaving.</b> {@link #resign()} and {@link #close()} end the term and release its lease at
 * once, so another candidate is elected without waiting for the ttl; a crashed leader blocks the
 * election until its lease's ttl runs out.
 *
 * <p>Thread-safe. The election's lock is the lock of the same name: a {@link LockClient#lock(String)}
 * of that name is excluded by leaders and excludes them.
 */
public interface Leadership extends AutoCloseable {

    /** The election's name. */
    String name();

    /** The display id others see in {@link LeaderInfo#leaderId()} while this candidate leads. */
    String leaderId();

    /**
     * Joins the election without blocking the caller: a daemon thread
     * ({@code leasehold-leader-<name>}) waits for the lock and holds each term; the listener hears
     * of every term on the candidate's event thread. Calling it again after {@link #resign()}
     * rejoins the election.
     *
     * @throws IllegalArgumentException if listener is null
     * @throws IllegalStateException    if this candidate already runs, or was closed
     */
    void start(LeadershipListener listener);

    /** Whether this candidate leads right now: it holds a term whose lease is valid. */
    boolean isLeader();

    /**
     * Waits up to {@code wait} until this candidate leads.
     *
     * @return the current term, or empty if the wait elapsed (or the candidate left the election) first
     * @throws IllegalArgumentException if wait is null, negative or longer than {@link LeaseSource#MAX_WAIT}
     * @throws LockInterruptedException if the thread was interrupted while waiting
     */
    Optional<Lease> awaitLeadership(Duration wait);

    /**
     * Who leads the election now, as the backend records it: the leader's display id, its term's
     * token and the value it published. Readable by any client, candidate or not (a candidate that
     * never started is a reader). Empty when nobody leads. Right after an election the new leader
     * may not have published yet, and after a crash the record lasts at most the term's ttl.
     *
     * @throws UnsupportedOperationException if the backend keeps no leader record (the message says why)
     * @throws LockUnavailableException      if the backend cannot be reached
     */
    Optional<LeaderInfo> currentLeader();

    /**
     * Leaves the election: ends the current term, if any ({@link Lease#lost()} completes, then the
     * leader record is cleared and the lease released, so another candidate is elected at once),
     * or stops waiting for the lock. Returns once that is done, or after 10 s if the backend does
     * not answer (the clearing and the release go on, and the listener's {@code onRevoked} still
     * comes). No {@code onElected} starts for a term that has ended, so none after this returned
     * for a term it ended. Idempotent; {@link #start} may join again later.
     */
    void resign();

    /**
     * {@link #resign()}, then stops the candidate's threads for good, once the listener has been
     * handed every {@code onRevoked} it is owed. Idempotent.
     */
    @Override
    void close();
}
