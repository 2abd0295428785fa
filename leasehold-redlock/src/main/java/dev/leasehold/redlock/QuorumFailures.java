package dev.leasehold.redlock;

import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The errors of a Redlock client: each says what was attempted, how many nodes agreed against how
 * many were needed, and carries every other node's cause, named by its credential-free address.
 */
final class QuorumFailures {

    private QuorumFailures() {
    }

    /** An acquire round that fewer than a majority of nodes answered. */
    static LockUnavailableException unreachable(String name, int nodes, int quorum, RoundResult.Lost lost) {
        return new LockUnavailableException("Redlock could not acquire '" + name + "': " + lost.granted() + " of "
                + nodes + " nodes granted, " + quorum + " needed (" + lost.why() + "); "
                + describe(lost.failures()) + ". Check that a majority of the Redis masters is running and reachable.",
                lost.failures());
    }

    /** A renewal or release that reached fewer than a majority while failed nodes might have made one. */
    static LockUnavailableException undecided(String operation, String name, int nodes, int quorum,
                                              QuorumVote.Result result) {
        return new LockUnavailableException("Redlock " + operation + " of '" + name + "' succeeded on "
                + result.yes() + " of " + nodes + " nodes, " + quorum + " needed, and the nodes that failed "
                + "might have made the difference; " + describe(result.failures()), result.failures());
    }

    /** A clean-up after an abandoned acquire that a majority of nodes did not confirm. */
    static LockUnavailableException cleanupIncomplete(String name, List<NodeFailure> failures) {
        return new LockUnavailableException("Redlock clean-up of '" + name + "' did not reach a majority of nodes; "
                + "what it left expires by its ttl: " + describe(failures), failures);
    }

    private static String describe(List<NodeFailure> failures) {
        return failures.stream().map(NodeFailure::toString).collect(Collectors.joining("; "));
    }
}
