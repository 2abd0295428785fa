package dev.leasehold.redlock;

import dev.leasehold.NodeFailure;

import java.time.Duration;
import java.util.List;

/** How one {@link AcquireRound} ended. */
sealed interface RoundResult {

    /** A majority granted within the validity, and the token was written back to a majority. */
    record Won(long token) implements RoundResult {
    }

    /**
     * No lease; what this round took on the nodes that granted has been released, and on the nodes
     * that failed or did not answer the release is retried until it gets through or the ttl ends.
     *
     * @param verdict         why, in the three classes the caller treats differently
     * @param granted         how many nodes had granted
     * @param failures        one entry per node that answered without granting
     * @param holderRemaining for {@link Verdict#HELD}: when enough of the holder's keys expire for
     *                        a majority to be free, if known; otherwise {@code null}
     * @param why             the reason in words, for messages and logs
     */
    record Lost(Verdict verdict, int granted, List<NodeFailure> failures, Duration holderRemaining, String why)
            implements RoundResult {
    }

    /** The classes of a lost round. */
    enum Verdict {
        /** A majority of nodes report another holder: wait for it. */
        HELD,
        /**
         * A majority was reachable but no one can be seen to hold it: a split vote between
         * contenders, a validity spent before the answers came, or a short token write-back.
         * Worth a retry after a random delay.
         */
        INCONCLUSIVE,
        /** Fewer than a majority of nodes answered at all: the lock is unavailable. */
        UNREACHABLE
    }
}
