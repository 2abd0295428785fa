package dev.leasehold.engine;

/**
 * What a {@link LeaseEngine} reports about its acquisitions and leases, for meters: Leasehold's
 * Micrometer binding implements it ({@code dev.leasehold.micrometer.MicrometerLeaseEvents}), and
 * so can any other monitoring system. A backend passes one to its engine with
 * {@link LeaseEngine.Settings#withEvents(LeaseEvents)}; {@link #NONE} ignores everything.
 *
 * <p>No event for meters carries a lock name: names are unbounded data, unfit for meter tags. Traces
 * get one per acquisition from {@link #acquireStarted}, which does. The engine
 * calls these methods on its own threads (client I/O threads, the renewal thread, callers'
 * threads), concurrently: an implementation must be thread-safe, fast, must not block and must
 * not throw.
 */
public interface LeaseEvents {

    /** Ignores every event: the engine's default. */
    LeaseEvents NONE = new LeaseEvents() {
    };

    /**
     * Returns {@code events}: the check of every builder's {@code leaseEvents(...)} and of
     * {@link LeaseEngine.Settings}, so a null gets the same message everywhere.
     *
     * @throws IllegalArgumentException if events is null (the message names {@link #NONE})
     */
    static LeaseEvents require(LeaseEvents events) {
        if (events == null) {
            throw new IllegalArgumentException("events must not be null; use LeaseEvents.NONE for none");
        }
        return events;
    }

    /**
     * Events that go to {@code first}, then to {@code second}: meters and traces together.
     *
     * @throws IllegalArgumentException if either is null
     */
    static LeaseEvents both(LeaseEvents first, LeaseEvents second) {
        return new BothLeaseEvents(require(first), require(second));
    }

    /**
     * An acquisition starts, called on the thread that asked for it (the caller of {@code acquire},
     * {@code tryAcquire} or {@code acquireAsync}), so that a tracing implementation can take that
     * thread's current span as the parent. The trace returned hears how the acquisition and its lease
     * end. Unlike every other event, this one names the lock.
     *
     * @param lockName the lock's name (unbounded data: a trace attribute at most, never a meter tag)
     * @param kind     the lock kind, {@link dev.leasehold.spi.LockProtocol#kind()}
     * @param backend  where the backend lives, without credentials ({@link dev.leasehold.spi.LockProtocol#describe()})
     * @return the acquisition's trace; {@link AcquisitionTrace#NONE} by default
     */
    default AcquisitionTrace acquireStarted(String lockName, String kind, String backend) {
        return AcquisitionTrace.NONE;
    }

    /**
     * An acquisition ended with a lease, a timeout (a skip, for a try) or an unreachable backend. Acquisitions that
     * were cancelled, interrupted or cut short by a closing client are not reported.
     *
     * @param kind      the lock kind, {@link dev.leasehold.spi.LockProtocol#kind()}
     * @param outcome   how it ended
     * @param waitNanos from the call to its outcome
     */
    default void acquireEnded(String kind, AcquireOutcome outcome, long waitNanos) {
    }

    /** A lease was granted and is held from now on; {@link #leaseEnded} follows exactly once. */
    default void leaseStarted() {
    }

    /**
     * A lease stopped being held: it was released or lost. Called exactly once per
     * {@link #leaseStarted()}.
     *
     * @param heldNanos from the grant to the release or loss
     */
    default void leaseEnded(long heldNanos) {
    }

    /**
     * A renewal got no answer (a connection error or the operation timeout); the watchdog retries
     * until the lease's local deadline. A renewal that the backend refused is a loss, not this.
     */
    default void renewalFailed() {
    }

    /** A held lease was lost; called once per lost lease, before {@link #leaseEnded}. */
    default void leaseLost(LossReason reason) {
    }

    /**
     * The holder released, or checked with {@link dev.leasehold.Lease#ensureValid()}, a lease that
     * had already been lost: work ran past its lease. Called at most once per lease, and never
     * for a lease ended by closing its client.
     */
    default void leaseOverrun() {
    }

    /**
     * The release of a held lease got no answer (a connection error or the operation timeout): the
     * key stays until its ttl runs out, since renewal stopped. Called once per failed attempt; a
     * retry that succeeds is not reported again. The release of a lease already lost is not.
     */
    default void releaseFailed() {
    }
}
