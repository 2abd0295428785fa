package dev.leasehold.redlock;

import dev.leasehold.LeaderInfo;
import dev.leasehold.spi.LeaderRecords;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Redlock keeps no leader record: elections work (each term is a Redlock lease with its quorum
 * token), but {@code currentLeader()} is refused. A record written to a majority of masters and
 * read back from a majority may find a deposed leader's record on some nodes and its successor's on
 * others, or a node that lost its write on restart; telling which is current would need a quorum
 * read compared against each node's lock key and fence plus a write-back round, a second
 * consensus protocol beside the lock's. Nothing is published, so there is nothing to clear.
 */
final class RedlockLeaderRecords implements LeaderRecords {

    static final String WHY = "currentLeader() is not offered on Redlock: a leader record on a majority of "
            + "independent masters can read a deposed leader's record on some nodes and its successor's on others, "
            + "and ordering them needs a quorum read with a write-back beside the lock's own; use isLeader() and the "
            + "listener, or let the leader publish itself to a store fenced by its term's token";

    @Override
    public CompletableFuture<Boolean> publish(String name, LeaderInfo info, Duration ttl) {
        return CompletableFuture.completedFuture(false);
    }

    @Override
    public CompletableFuture<Void> clear(String name, long token) {
        return CompletableFuture.completedFuture(null);
    }

    /** @throws UnsupportedOperationException always, saying why */
    @Override
    public CompletableFuture<Optional<LeaderInfo>> read(String name) {
        throw new UnsupportedOperationException(WHY);
    }
}
