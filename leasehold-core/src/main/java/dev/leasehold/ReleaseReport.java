package dev.leasehold;

/**
 * What a completed release found on the backend, for callers (and operators) who need more than
 * the {@link ReleaseStatus}: on a quorum backend, how many nodes still held this lease's key.
 *
 * @param status        what {@link Lease#release()} returned
 * @param nodesHolding  nodes on which the key was still this lease's and was deleted
 * @param nodesAnswered nodes that answered the release (the others were unreachable or timed out)
 * @param nodes         nodes the backend has (1 for a single server)
 */
public record ReleaseReport(ReleaseStatus status, int nodesHolding, int nodesAnswered, int nodes) {
}
