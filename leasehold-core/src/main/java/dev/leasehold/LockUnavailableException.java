package dev.leasehold;

import java.util.List;

/**
 * The lock backend could not be reached, refused the credentials, or (for quorum
 * backends) too few nodes granted the lock. The message names the server(s) and the
 * cause; {@link #failures()} holds one entry per node that failed.
 *
 * <p>When this is thrown from an acquire, nothing is held: any partial acquisition
 * has been released (or is being released in the background, bounded by its TTL).
 */
public class LockUnavailableException extends LeaseholdException {

    private final List<NodeFailure> failures;

    public LockUnavailableException(String message, List<NodeFailure> failures) {
        super(message, firstCause(failures));
        this.failures = List.copyOf(failures);
    }

    public LockUnavailableException(String message, NodeFailure failure) {
        this(message, List.of(failure));
    }

    /** One entry per node that did not grant the request, in node order. */
    public List<NodeFailure> failures() {
        return failures;
    }

    private static Throwable firstCause(List<NodeFailure> failures) {
        return failures.stream().map(NodeFailure::cause).filter(c -> c != null).findFirst().orElse(null);
    }
}
