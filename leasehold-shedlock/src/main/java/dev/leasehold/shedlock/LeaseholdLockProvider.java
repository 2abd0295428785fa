package dev.leasehold.shedlock;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import java.time.Duration;
import java.util.Optional;

/**
 * A ShedLock {@link ExtensibleLockProvider} over any Leasehold {@link LockClient} (Redis, Redlock,
 * PostgreSQL, ZooKeeper, etcd): replace the application's {@code LockProvider} bean with
 * {@code new LeaseholdLockProvider(lockClient)} and every {@code @SchedulerLock} job runs under a
 * Leasehold lease, with a fencing token ({@link #currentLease()}) and loss detection.
 *
 * <p><b>Semantics (ShedLock's).</b>
 * <ul>
 *   <li>{@link #lock} is one non-blocking try ({@code tryAcquire(Duration.ZERO)}) of the client's
 *   exclusive lock of that name: empty if anyone holds it, this thread and this provider included
 *   (it is not reentrant; ShedLock's executor skips nested runs of the same name itself).</li>
 *   <li>{@code lockAtMostFor} is a {@link LockOptions#fixedLease fixed lease}: nothing renews it, the
 *   backend frees the lock once it passed even if the process died. A {@code lockAtMostFor} shorter
 *   than {@link LockOptions#MIN_TTL} (10 ms) is held for 10 ms on the server: another client can take
 *   the lock 10 ms after the acquire, not sooner; below that the drift allowance
 *   ({@code ttl * 0.01 + 2 ms}) would leave the holder no valid lease at all. This lock's own
 *   {@code lockAtMostFor} still counts for {@link SimpleLock#extend}, which refuses once it passed.</li>
 *   <li>{@code lockAtLeastFor} is {@link LockOptions#holdAtLeast(Duration) hold-at-least}: unlocked
 *   earlier, the lock stays held on the server until {@code lockAtLeastFor} after the acquire, by the
 *   server's own expiry, so also if the process dies right after the unlock (as precisely as the
 *   backend keeps time: etcd rounds what remains up to whole seconds).</li>
 *   <li>{@link SimpleLock#unlock()} releases with a compare-and-delete: after expiry it is a silent
 *   no-op that never touches the next holder. {@link SimpleLock#extend} returns a new lock or empty
 *   and never revives a lost lock; see {@link LeaseholdSimpleLock}.</li>
 * </ul>
 * Durations count from the acquire's send time on this machine ({@link System#nanoTime()}), not from
 * {@link LockConfiguration}'s {@code createdAt}: no clock of another machine is involved.
 *
 * <p><b>Fencing token and loss.</b> While a job runs under ShedLock's executor (the
 * {@code @SchedulerLock} aspect, {@code LockingTaskExecutor}), {@link #currentLease()} gives its
 * lease on the job's thread, as ShedLock's {@code LockAssert} and {@code LockExtender} find the
 * active lock: pass {@link Lease#token()} with every write (a {@link dev.leasehold.FenceGuard}
 * rejects a late holder's), and watch {@link Lease#lost()} or {@link Lease#isValid()} to stop a job
 * that outran its {@code lockAtMostFor}. A lock taken by calling {@link #lock} directly gives its lease
 * as {@link LeaseholdSimpleLock#lease()}. (Leasehold's own {@link Lease#current()} is not set: it
 * belongs to {@code DistributedLock.call}.) The lease's local deadline is {@code lockAtMostFor} minus
 * the drift allowance after the acquire's send time, so it ends a little before the server frees
 * the lock.
 *
 * <p><b>Names.</b> Any non-empty ShedLock name is used as the Leasehold lock name unchanged, with the
 * limits every {@link LockClient#lock(String)} sets: names that are blank (only whitespace), longer
 * than 1024 characters or hold a lone UTF-16 surrogate are refused, and on PostgreSQL also names with
 * a NUL character or longer than 2048 bytes in UTF-8 (its index); {@link #lock} throws
 * {@link IllegalArgumentException} for them, naming what was wrong.
 *
 * <p><b>Errors.</b> A backend that cannot be reached is not a lock held by someone else: {@link #lock}
 * throws {@link dev.leasehold.LockUnavailableException} (ShedLock's executor then neither runs the job
 * nor hides the failure). Thread-safe; it owns nothing, so closing the {@link LockClient} is the
 * application's business (a close releases the locks still held, keeping those whose
 * {@code lockAtLeastFor} has not passed).
 */
public final class LeaseholdLockProvider implements ExtensibleLockProvider {

    private final LockClient client;

    /**
     * A provider taking its locks from {@code client}.
     *
     * @throws IllegalArgumentException if client is null
     */
    public LeaseholdLockProvider(LockClient client) {
        if (client == null) {
            throw new IllegalArgumentException("client must not be null: pass the LockClient to take the locks from");
        }
        this.client = client;
    }

    /**
     * Tries once, without waiting, to take the lock {@code configuration} names.
     *
     * @return a {@link LeaseholdSimpleLock}, or empty if the lock is held (by anyone)
     * @throws IllegalArgumentException if the name is one the backend refuses (see above), or
     *                                  lockAtMostFor exceeds {@link LockOptions#MAX_TTL}
     * @throws dev.leasehold.LockUnavailableException if the backend could not be reached
     * @throws dev.leasehold.LockClientClosedException if the client was closed
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        if (configuration == null) {
            throw new IllegalArgumentException("configuration must not be null: pass the job's LockConfiguration");
        }
        LockOptions options = ShedLockDurations.options(configuration);
        long sentAt = System.nanoTime();
        Optional<Lease> lease = client.lock(configuration.getName(), options).tryAcquire(Duration.ZERO);
        if (lease.isEmpty()) {
            return Optional.empty();
        }
        LeaseholdSimpleLock lock = new LeaseholdSimpleLock(lease.get(), sentAt + configuration.getLockAtMostFor().toNanos());
        ActiveLocks.push(lock.chain());
        return Optional.of(lock);
    }

    /**
     * The lease of the innermost lock a {@code LeaseholdLockProvider} gave the calling thread that is still active
     * (not unlocked; an extension's new lock takes its place, on whatever thread it was made): inside a
     * job run by ShedLock's executor, the job's lease. Empty outside of any.
     */
    public static Optional<Lease> currentLease() {
        return ActiveLocks.current();
    }

    @Override
    public String toString() {
        return "LeaseholdLockProvider{" + client.describe() + "}";
    }
}
