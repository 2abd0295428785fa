package dev.leasehold;

import java.util.Objects;

/**
 * Why one backend node did not grant a request: carried by {@link LockUnavailableException}
 * so a caller (or an operator reading a log) sees each node's reason, not just a count.
 *
 * @param node  where the node lives, without credentials, e.g. {@code redis://10.0.0.5:6379}
 * @param kind  the class of failure
 * @param cause the underlying error, or {@code null} when the node answered but refused
 */
public record NodeFailure(String node, Kind kind, Throwable cause) {

    /** The class of a node's failure. */
    public enum Kind {
        /** The connection could not be made or was refused. */
        REFUSED,
        /** The node did not answer in time. */
        TIMED_OUT,
        /** The node answered: another holder has the lock there. */
        HELD_BY_OTHER,
        /** The node rejected the credentials. */
        AUTHENTICATION,
        /** Any other error the node returned. */
        ERROR
    }

    public NodeFailure {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(kind, "kind");
    }

    @Override
    public String toString() {
        return node + ": " + kind + (cause == null ? "" : " (" + cause.getMessage() + ")");
    }
}
