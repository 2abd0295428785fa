package dev.leasehold;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The leases of a {@link MultiLock}, held together. Valid while every part is valid; lost as soon
 * as any part is lost. Releasing releases every part. Thread-safe; owned by the object, not a thread.
 */
public interface MultiLease extends AutoCloseable {

    /** The parts' leases, in the order they were taken (sorted by lock name). */
    List<Lease> leases();

    /**
     * The lease on {@code name}.
     *
     * @throws IllegalArgumentException if this multi-lease has no part of that name
     */
    Lease lease(String name);

    /** True while every part is valid. */
    boolean isValid();

    /** Completes with the first part's loss: the holder should stop then, as with {@link Lease#lost()}. */
    CompletionStage<LeaseLostException> lost();

    /**
     * Releases every part (each one, even after a failure of another).
     *
     * @return {@link ReleaseStatus#RELEASED} if every part was still held, else
     *         {@link ReleaseStatus#ALREADY_LOST}
     * @throws LockUnavailableException if a part's release could not reach its backend (the
     *                                  others were still released); calling again retries
     */
    ReleaseStatus release();

    /** Same as {@link #release()}. */
    @Override
    void close();
}
