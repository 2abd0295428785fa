package dev.leasehold.spi;

import dev.leasehold.LockKind;

import java.util.Objects;

/**
 * The protocol of one {@link LockKind} on a backend that keeps every acquisition of a name in one
 * server-side queue decided by {@link QueueRule}: it describes itself by its deployment, names its
 * kind by {@link LockKind#tag()} and admits a client's acquisitions as {@link QueueRule#admission}
 * says for the kind.
 */
public abstract class QueueKindProtocol implements LockProtocol {

    private final String description;
    private final LockKind kind;

    /**
     * @param description the deployment, as {@link #describe()} gives it
     * @param kind        the lock kind this protocol serves
     * @throws NullPointerException if either is null
     */
    protected QueueKindProtocol(String description, LockKind kind) {
        this.description = Objects.requireNonNull(description, "description");
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    /** The lock kind this protocol serves. */
    protected final LockKind lockKind() {
        return kind;
    }

    @Override
    public final String describe() {
        return description;
    }

    @Override
    public final String kind() {
        return kind.tag();
    }

    @Override
    public final Admission admission() {
        return QueueRule.admission(kind);
    }
}
