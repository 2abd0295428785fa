package dev.leasehold.micrometer;

import io.micrometer.observation.Observation;

/**
 * What an observation of Leasehold knows about its lock: the base of {@link AcquireObservationContext}
 * and {@link LeaseObservationContext}, which a convention reads its key values from.
 */
public abstract class LockObservationContext extends Observation.Context {

    private final String lockName;
    private final String kind;
    private final String backend;
    private volatile String outcome;

    LockObservationContext(String lockName, String kind, String backend, String outcome) {
        this.lockName = lockName;
        this.kind = kind;
        this.backend = backend;
        this.outcome = outcome;
    }

    /** The lock's name: unbounded, so a high-cardinality value at most (never a meter tag). */
    public String lockName() {
        return lockName;
    }

    /** The lock kind, as {@link dev.leasehold.LockKind#tag()} writes it: {@code lock}, {@code fair_lock}, ... */
    public String kind() {
        return kind;
    }

    /** Where the backend lives, without credentials, e.g. {@code redis://localhost:6379}. */
    public String backend() {
        return backend;
    }

    /** How the observed phase ended, or {@code pending} while it runs. */
    public String outcome() {
        return outcome;
    }

    void outcome(String outcome) {
        this.outcome = outcome;
    }
}
