package dev.leasehold.spi;

import dev.leasehold.LeaderInfo;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A backend's record of who leads an election (see {@link dev.leasehold.Leadership}): the leader's
 * display id, its term's token and its published value, kept beside the election's lock so that
 * clients that are not candidates can read it. A backend client offers it by implementing
 * {@link Source}; without it, {@code currentLeader()} is unsupported and nothing is published.
 *
 * <p>Every call is asynchronous and must not block; a backend that cannot be reached completes the
 * future exceptionally with a {@link dev.leasehold.LockUnavailableException}.
 */
public interface LeaderRecords {

    /**
     * Writes (or refreshes) the record of {@code name} for the term {@code info.token()}, held by the
     * current holder of the lock {@code name}, for at most {@code ttl} unless refreshed. Fenced: it
     * writes only if no record of a higher token is stored, so a deposed leader can never overwrite
     * its successor's record.
     *
     * @return true if written, false if a higher term's record is stored (or the term's lock is gone)
     */
    CompletableFuture<Boolean> publish(String name, LeaderInfo info, Duration ttl);

    /** Deletes the record of {@code name} if it is the one of term {@code token}; otherwise nothing. */
    CompletableFuture<Void> clear(String name, long token);

    /** The record of the leader holding the lock {@code name} now; empty if nobody leads (or published). */
    CompletableFuture<Optional<LeaderInfo>> read(String name);

    /** Implemented by a backend's {@link dev.leasehold.LockClient} that keeps leader records. */
    interface Source {

        /** This client's leader records. */
        LeaderRecords leaderRecords();
    }
}
