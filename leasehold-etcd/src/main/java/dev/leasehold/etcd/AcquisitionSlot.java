package dev.leasehold.etcd;

import java.util.concurrent.CompletableFuture;

/**
 * One acquisition's current etcd lease and key ({@link Acquisitions.Acquisition}), replaced when it
 * had to be granted again or lengthened, and the calls a release or abandon must wait for.
 *
 * <p>Why attempts are admitted: an attempt's {@code Txn} may create the key, and a key on a session
 * is not deleted with the acquisition (the session lives on for other keys). So a release or abandon
 * ({@link #end()}) waits for the last attempt admitted before it, and no attempt is admitted after it:
 * one that looked the slot up just before the abandon removed it would otherwise create the key after
 * the abandon deleted it, on a session kept alive, and the lock would be held by nobody for as long
 * as the client lives. The check and the registration are one step under the slot's monitor, the
 * same one {@link #end()} takes.
 */
final class AcquisitionSlot {

    volatile CompletableFuture<Acquisitions.Acquisition> current;
    /**
     * The last renewal or extension: each waits for the one before, which may replace the lease.
     * Read and written under this slot's monitor.
     */
    CompletableFuture<Boolean> lastRenewal = CompletableFuture.completedFuture(true);
    private CompletableFuture<?> lastAttempt = CompletableFuture.completedFuture(null);
    private boolean ended;
    /** Whether an attempt or a release failed: a write of the key may still land, so its number is never reused. */
    private volatile boolean uncertain;
    /**
     * Whether a lengthening may have moved the key onto a lease that {@link #current} does not hold
     * (its answer was lost, or the key was no longer the holder's): a release then deletes the key
     * where it stands, guarded on the holder id, before it revokes the lease.
     */
    volatile boolean keyMayHaveMoved;

    AcquisitionSlot(CompletableFuture<Acquisitions.Acquisition> current) {
        this.current = current;
    }

    /**
     * Registers {@code attempt} as the last one, unless the acquisition ended.
     *
     * @return false if {@link #end()} came first: the attempt must not be sent
     */
    synchronized boolean admit(CompletableFuture<?> attempt) {
        if (ended) {
            return false;
        }
        // Marked before end() sees the attempt end, so a release that follows reads the mark.
        lastAttempt = attempt.whenComplete((ignored, error) -> {
            if (error != null) {
                uncertain = true;
            }
        });
        return true;
    }

    /** A write of the key failed: its outcome is unknown. */
    void uncertain() {
        uncertain = true;
    }

    /** Whether every attempt and release of this acquisition was answered ({@link KeyNumbers}). */
    boolean everyAttemptAnswered() {
        return !uncertain;
    }

    /**
     * Ends the acquisition for attempts ({@link #admit} refuses from now on).
     *
     * @return completes, whatever its outcome, once the last attempt admitted ended
     */
    synchronized CompletableFuture<Void> end() {
        ended = true;
        return lastAttempt.handle((ignored, error) -> null);
    }

    /** A release or abandon that failed will be retried: the acquisition is open again, as before {@link #end()}. */
    synchronized void reopen() {
        ended = false;
    }
}
