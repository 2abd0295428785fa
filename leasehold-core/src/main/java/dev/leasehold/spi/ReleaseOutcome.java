package dev.leasehold.spi;

/**
 * A backend's answer to a release.
 *
 * @param released      whether the lock was this holder's and is now free (on a quorum backend:
 *                      on a majority of nodes)
 * @param nodesHolding  nodes on which the key was still this holder's
 * @param nodesAnswered nodes that answered
 * @param nodes         nodes asked
 */
public record ReleaseOutcome(boolean released, int nodesHolding, int nodesAnswered, int nodes) {

    /** The outcome on a single server. */
    public static ReleaseOutcome single(boolean released) {
        return new ReleaseOutcome(released, released ? 1 : 0, 1, 1);
    }
}
