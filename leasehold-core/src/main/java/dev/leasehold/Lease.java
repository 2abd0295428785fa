package dev.leasehold;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One successful acquisition of a lock: the holder owns it until it calls {@link #release()}
 * (or {@link #close()}) or the lease is lost.
 *
 * <p><b>Ownership belongs to this object, not to a thread.</b> Any thread, virtual thread or
 * callback holding the reference may use or release it. All methods are thread-safe.
 *
 * <p><b>What a lease guarantees.</b> While {@link #isValid()} is true, no other client has been
 * granted the same lock by this backend, provided the server's clock rate and the client's
 * stay within the drift allowance and the backend did not lose the key (a failover of an
 * asynchronously replicated Redis can). A lease cannot stop a paused holder: between a check
 * of {@code isValid()} and the next write, the lease may expire. That is why every write to a
 * shared resource should carry {@link #token()} through a {@link FenceGuard}.
 */
public interface Lease extends AutoCloseable {

    /**
     * The lease whose work is running on this thread: set while {@link DistributedLock#call},
     * {@link DistributedLock#run} (and the semaphore's) run their work, and only then. Nested calls
     * on other locks see their own lease and get the outer one back when they return. The binding
     * belongs to the thread that runs the work: threads the work starts do not inherit it (pass the
     * lease, or its {@link #token()}, to them).
     *
     * @throws IllegalStateException if no lease-scoped work runs on this thread
     */
    static Lease current() {
        return LeaseScope.current();
    }

    /**
     * Runs {@code work} on this thread under this lease, which stays held afterwards: for a leader's
     * term ({@link LeadershipListener#onElected}) or any lease the caller keeps. The lease is bound
     * as {@link #current()} while the work runs; when it is lost meanwhile (for a term: when the term
     * ends), this thread is interrupted at once and the call throws {@link LeaseLostException}, with
     * the work's own exception added as suppressed. Interruption is cooperative, as in
     * {@link LeaseSource#call(Duration, Callable)}, and the interrupt delivered is cleared before the
     * call throws.
     *
     * @throws IllegalArgumentException if work is null
     * @throws LeaseLostException if the lease is not valid when called, or was lost while the work ran
     * @throws Exception whatever the work threw, unchanged
     */
    default <T> T call(Callable<T> work) throws Exception {
        return LeaseScope.within(this, work);
    }

    /** The name of the lock this lease holds. */
    String lockName();

    /**
     * The fencing token of this lease: strictly greater than every token issued earlier for the
     * same lock name to a different lease, of any kind. Pass it with every write the lease protects.
     *
     * <p>Assumptions, on Redis: tokens are {@code max(last + 1, server time in µs)}, so they keep
     * rising after the name's fence key expired as long as the server clock did not step back (or,
     * after a failover, the new server's clock does not lag) by more than the fence retention
     * (10 min by default), and the server did not lose the fence key's last write.
     */
    long token();

    /**
     * True while the lease is held and its local deadline has not passed. Turns false at the
     * deadline without any server round trip, even if the backend cannot be reached.
     */
    boolean isValid();

    /** Time left before the local deadline; {@link Duration#ZERO} once the lease is not valid. */
    Duration remaining();

    /**
     * Returns normally if the lease is valid.
     *
     * @throws LeaseLostException if it was lost or already released
     */
    void ensureValid();

    /**
     * Explicit extension: asks the backend to keep this lease for {@code ttl} from now, for a fixed
     * lease that needs longer than its lease time, or a watchdog lease that wants a longer horizon
     * than its ttl (e.g. before a step that cannot renew). A compare-and-extend on the server: it
     * succeeds only while the lease is still this holder's, and never revives a lost or released
     * lease. The local deadline moves only once the server confirmed, to the send time of this call
     * plus {@code ttl} minus its drift ({@code ttl * 0.01 + 2 ms}); an answer that arrives after the
     * old deadline moves nothing. It never shortens a lease: the server keeps the longer of the two
     * expiries, and so does the local deadline. The extension is sent at once, not with the next
     * renewal batch; {@link LockOptions#maxHold()} does not limit it.
     *
     * @throws IllegalArgumentException if ttl is null or outside [{@link LockOptions#MIN_TTL}, {@link LockOptions#MAX_TTL}]
     * @throws LeaseLostException if the lease was already lost or released, or the server found another
     *         holder (or no key), which marks it lost; nothing was extended
     * @throws LockUnavailableException if the backend could not be reached; the lease keeps its old
     *         deadline, and the call may be retried
     */
    void extend(Duration ttl);

    /**
     * {@link #extend(Duration)} without blocking. Bad arguments and a lease already lost throw at
     * once, as there; the future completes when the server answered, or exceptionally with a
     * {@link LeaseLostException} or {@link LockUnavailableException}. Completions run on a client
     * I/O thread: keep them short.
     */
    CompletableFuture<Void> extendAsync(Duration ttl);

    /**
     * Completes, with the reason, when the lease is lost: a renewal found another holder (or no
     * key), the local deadline passed without a successful renewal, the backend reported it gone,
     * or the client was closed. It completes no later than the local deadline (plus scheduler
     * latency). It never completes after a normal release. Callbacks run on a shared pool thread
     * ({@link java.util.concurrent.ForkJoinPool#commonPool()}), never on the client's I/O or
     * renewal thread, so a callback that blocks delays no renewal; still, hand long work off.
     */
    CompletionStage<LeaseLostException> lost();

    /**
     * Releases the lock if this lease still holds it, with a compare-and-delete that can never
     * remove another holder's key. Idempotent and safe to retry: a second call returns the
     * first call's status without a new round trip. Stops renewal before anything else, so a
     * renewal can never revive a released lease.
     *
     * <p>A lease already known to be lost ({@link #isValid()} false, {@link #lost()} completed) is
     * released without waiting on the backend, which may be the frozen or dead server that lost it:
     * the call returns {@link ReleaseStatus#ALREADY_LOST} at once, and the compare-and-delete runs in
     * the background (so a key the server still kept is freed before its ttl).
     *
     * @return {@link ReleaseStatus#RELEASED} if the lock was ours and is now free,
     *         {@link ReleaseStatus#ALREADY_LOST} if the lease had expired or been taken over
     * <p>A call retried after a {@link LockUnavailableException} that finds the key gone returns
     * {@link ReleaseStatus#RELEASED}: the failed attempt, sent while the lease was held, may have
     * deleted it with its answer lost, or the ttl ran out after the holder had let go; either way the
     * lease held through the work that ended before the first call.
     *
     * @throws LockUnavailableException if the backend could not be reached while the lease was still
     *         held; the call may be retried, and the key expires by its ttl in any case
     */
    ReleaseStatus release();

    /**
     * {@link #release()} without blocking: for asynchronous pipelines, which would otherwise tie up
     * a pool thread on the round trip. Same guarantees; the returned future completes with the
     * status, or exceptionally with a {@link LockUnavailableException} (then a later call
     * retries). Completions run on a client I/O thread or the callback pool: keep them short.
     */
    CompletableFuture<ReleaseStatus> releaseAsync();

    /**
     * What the completed release found: the status and, on a quorum backend, how many nodes still
     * held this lease's key. Empty until a release has completed. For a lease released after it was
     * lost, the report says no node answered until the background compare-and-delete answers, then
     * what it found.
     */
    Optional<ReleaseReport> releaseReport();

    /** Same as {@link #release()}, for try-with-resources. */
    @Override
    void close();
}
