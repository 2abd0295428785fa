package dev.leasehold.engine;

import dev.leasehold.Lease;
import dev.leasehold.LeaseholdException;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.spi.SettlingFuture;
import dev.leasehold.spi.Wake;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One acquisition, from the first attempt to a lease or an error: the waiting engine shared by
 * every lock kind.
 *
 * <p>An operation first joins its client's {@link WaitQueues local queue} for the lock name and
 * talks to the backend only once it is the head. The head's first attempt goes out without a
 * subscription (unless the client still has one for this lock from a recent wait: then it
 * registers as a waiter at once), so an uncontended acquire is one round trip. If the lock is held, the head
 * subscribes to release notifications, then retries (a release between the first attempt and
 * the subscription is caught by that retry), and from then on retries when a notification
 * arrives or the {@link WaitPolicy} timer fires, whichever comes first. The notification future
 * is taken before each attempt is sent, so a release that lands while the attempt's answer is in
 * flight still wakes the waiter. For a protocol that {@link LockProtocol#coversWaiters() covers
 * waiters}, the timer is its {@link RecheckGroups group}'s: the client's waiters of the lock
 * re-check together, in one attempt of the one that arrived first.
 *
 * <p>On success the lease takes over the operation's place at the head of the local queue
 * ({@link WaitQueues#hold}) and keeps it until it ends; the operation itself is not kept. Failure,
 * timeout and cancellation all end in {@link #cleanup()}: the attempt in flight is called off, and
 * once its work has ended on the backend ({@link SettlingFuture#settledOf}: a cancelled future
 * does not stop a blocking JDBC transaction), the backend is told to forget the waiter and to
 * release the lock if a late attempt took it (retried
 * across a reconnect until that attempt's ttl is over, since a lost reply can leave a granted key
 * behind), the subscription is dropped, and the queue moves on. Completions for asynchronous
 * callers are handed to the engine's callback executor, so user code never runs on (or blocks) a
 * client I/O thread.
 *
 * <p>The caller gets its own future, not the engine's: whoever completes it first (the caller, by
 * {@code cancel}, {@code complete} or {@code orTimeout}, or the engine) decides. A completion the
 * engine did not make abandons the operation exactly like a cancellation, and a lease granted
 * after it is released.
 */
final class AcquireOperation {

    private static final Logger LOG = LoggerFactory.getLogger(AcquireOperation.class);
    private static final long FIRST_CLEANUP_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MAX_CLEANUP_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Arrival order across the JVM: a re-check group gives the first turn to the earliest waiter. */
    private static final AtomicLong ARRIVALS = new AtomicLong();

    private final EngineLock lock;
    private final LeaseEngine engine;
    private final Duration wait;
    private final long waitDeadlineNanos;
    private final boolean blockingCaller;
    /** A try: an elapsed wait is reported as {@link AcquireOutcome#SKIPPED}, not as a timeout. */
    private final boolean skipOnTimeout;
    private final String holder;
    private final long arrival = ARRIVALS.incrementAndGet();
    /** The other waiters the next attempt re-checks for, set when the group gives this one its turn. */
    private final AtomicReference<List<AcquireOperation>> covering = new AtomicReference<>();
    /** The thread that asked, named in a local timeout's message. */
    private final String requester;
    /** The engine's outcome; only the engine completes it (or cancels it, to abandon). */
    private final CompletableFuture<ManagedLease> result = new CompletableFuture<>();
    /** The caller's copy of {@link #result}, which the caller may complete too. */
    private final CompletableFuture<Lease> handedOut = new CompletableFuture<>();
    private final CompletableFuture<Void> cleanedUp = new CompletableFuture<>();
    private final AtomicBoolean turnTaken = new AtomicBoolean();
    private volatile boolean talkedToBackend;
    private volatile long lastSentNanos;
    private volatile boolean unavailabilityReported;
    private final AtomicBoolean cleanupStarted = new AtomicBoolean();
    /** Set when the clean-up begins: an attempt it cancels then fails with no reason of its own. */
    private volatile boolean ending;
    private final AtomicReference<CompletableFuture<Wake>> pendingWait = new AtomicReference<>();
    private final AtomicReference<ScheduledFuture<?>> queuedTimeout = new AtomicReference<>();
    private final AtomicReference<ReleaseSignal> signal = new AtomicReference<>();
    private final AtomicReference<CompletableFuture<Attempt>> inFlight = new AtomicReference<>();
    /** The last attempt sent, kept after it completed: its work on the backend may still run. */
    private final AtomicReference<CompletableFuture<Attempt>> lastCall = new AtomicReference<>();
    private final AtomicBoolean granted = new AtomicBoolean();
    private final SendStamps recentStamps = new SendStamps();
    /** Set by {@link #start()} on the caller's thread, before anything can end the operation. */
    private volatile AcquisitionTrace trace = AcquisitionTrace.NONE;

    /**
     * @param wait           how long to wait, or {@code null} to wait without limit
     * @param blockingCaller whether a thread blocks on the result: then it may be completed from
     *                       an I/O thread directly, saving a thread hop on every acquire
     * @param skipOnTimeout  whether the caller turns an elapsed wait into "go without the lock"
     *                       (a try), so that it is counted as skipped
     */
    AcquireOperation(EngineLock lock, LeaseEngine engine, Duration wait, boolean blockingCaller,
                     boolean skipOnTimeout) {
        this.lock = lock;
        this.engine = engine;
        this.wait = wait;
        this.blockingCaller = blockingCaller;
        this.skipOnTimeout = skipOnTimeout;
        this.holder = engine.holderIds().next();
        this.requester = Thread.currentThread().getName();
        long startedAt = System.nanoTime();
        this.waitDeadlineNanos = wait == null ? 0 : startedAt + wait.toNanos();
        result.whenComplete((lease, error) -> {
            if (result.isCancelled()) {
                trace.notGranted(AcquireOutcome.CANCELLED, null);
                cleanup();
                handedOut.cancel(false);
            } else if (error != null) {
                report(error, startedAt);
                // Out of the local queue before the caller hears of it: a try made at once after a
                // failed one must take its turn, not queue behind this one and time out unasked.
                cleanup();
                handedOut.completeExceptionally(error);
            } else {
                // Reported before the caller gets the lease, so its release is never reported first.
                if (!handedOut.isDone()) {
                    report(null, startedAt);
                }
                if (!handedOut.complete(lease)) {
                    lease.discard();
                }
            }
        });
        handedOut.whenComplete((lease, error) -> {
            if (!result.isDone()) {
                result.cancel(false);
            }
        });
    }

    /**
     * Reports an acquisition that ended: to the trace always, to the meters when it ended with a lease
     * (no error), a timeout (or skip) or an unreachable backend.
     */
    private void report(Throwable error, long startedAtNanos) {
        AcquireOutcome outcome;
        if (error == null) {
            outcome = AcquireOutcome.ACQUIRED;
        } else if (error instanceof LockTimeoutException) {
            outcome = skipOnTimeout ? AcquireOutcome.SKIPPED : AcquireOutcome.TIMEOUT;
        } else if (engine.isClosed()) {
            trace.notGranted(AcquireOutcome.CANCELLED, error);
            return;
        } else if (error instanceof LockUnavailableException) {
            outcome = AcquireOutcome.UNAVAILABLE;
        } else {
            trace.notGranted(AcquireOutcome.FAILED, error);
            return;
        }
        if (error != null) {
            trace.notGranted(outcome, error);
        }
        engine.events().acquireEnded(lock.protocol().kind(), outcome, System.nanoTime() - startedAtNanos);
    }

    /**
     * Joins the local queue and starts once at its head. Completing the returned future in any way
     * before the engine does (cancel, complete, orTimeout) abandons the operation.
     */
    CompletableFuture<Lease> start() {
        trace = OnceTrace.of(engine.events().acquireStarted(lock.name(), lock.protocol().kind(),
                lock.protocol().describe()));
        if (engine.queues().enter(lock.queueKey(), this)) {
            takeTurn();
        } else if (wait != null) {
            queuedTimeout.set(engine.scheduler().schedule(this::timeOutInQueue, waitDeadlineNanos - System.nanoTime()));
            if (turnTaken.get()) {
                cancelQueuedTimeout();
            }
        }
        return handedOut;
    }

    /**
     * Completes once the operation has cleaned up: after its failure or cancellation (the abandon
     * sent, the subscription dropped), or after its grant (the subscription dropped).
     */
    CompletableFuture<Void> cleanedUp() {
        return cleanedUp;
    }

    /** Called once this operation is the head of its local queue. */
    void takeTurn() {
        if (turnTaken.compareAndSet(false, true)) {
            cancelQueuedTimeout();
            talkedToBackend = true;
            attempt();
        }
    }

    private void timeOutInQueue() {
        if (turnTaken.compareAndSet(false, true)) {
            fail(timedOut());
        }
    }

    /** The timeout, saying so when a lease of this client is what kept the lock. */
    private LockTimeoutException timedOut() {
        String thread = engine.localHolderThread(lock);
        return thread == null ? new LockTimeoutException(lock.name(), wait)
                : new LockTimeoutException(lock.name(), wait, "it is held by this client (thread '" + thread + "')");
    }

    private void cancelQueuedTimeout() {
        ScheduledFuture<?> timeout = queuedTimeout.getAndSet(null);
        if (timeout != null) {
            timeout.cancel(false);
        }
    }

    private void attempt() {
        // The clean-up may run before the result is completed (a closing client cleans up first),
        // and the wait it cancels on its way comes here: from its start on, nothing more is sent.
        if (result.isDone() || ending) {
            return;
        }
        LockProtocol protocol = lock.protocol();
        if (signal.get() == null) {
            ReleaseSignal warm = protocol.subscribeIfActive(lock.name(), holder);
            if (warm != null && !signal.compareAndSet(null, warm)) {
                warm.unsubscribe();
            }
        }
        ReleaseSignal subscribed = signal.get();
        CompletableFuture<Wake> wake = subscribed == null ? null : subscribed.next();
        List<AcquireOperation> covered = covering.getAndSet(null);
        long sentAt = System.nanoTime();
        lastSentNanos = sentAt;
        recentStamps.record(sentAt);
        List<String> coveredIds = new ArrayList<>();
        if (covered != null) {
            // Before the send: a handoff that echoes this stamp to a covered waiter may come back first.
            for (AcquireOperation other : covered) {
                other.coveredAt(sentAt);
                coveredIds.add(other.holder);
            }
        }
        CompletableFuture<Attempt> call = protocol.tryAcquire(
                new AcquireRequest(lock.name(), holder, lock.options().ttl(), subscribed != null, sentAt, coveredIds));
        // If the operation ended meanwhile, its clean-up may have gone out before this send: the
        // call is left to complete, and a grant it brings is released by deliver().
        inFlight.set(call);
        lastCall.set(call);
        if (cleanupStarted.get()) {
            // The clean-up ran while this attempt was being sent, so its abandon may have gone out
            // first: abandon again once the attempt settled; a closing client waits for it.
            CompletableFuture<Void> again = new CompletableFuture<>();
            engine.trackClosingWork(again);
            abandonOnceSettled(call, again, sentAt + lock.options().ttl().toNanos());
        }
        lock.timeouts().bound(call)
                .whenComplete((outcome, error) -> {
                    inFlight.compareAndSet(call, null);
                    if (error != null) {
                        cancel(wake);
                        // Cancelled by this operation's own clean-up: it already ends with its own
                        // reason (closed, timed out, abandoned), which this must not replace.
                        if (!(ending && Futures.unwrap(error) instanceof CancellationException)) {
                            fail(Futures.translate(error, protocol.describe(), "the acquire of '" + lock.name() + "'"));
                            // The waiters it covered try for themselves, so that each learns of the
                            // error now rather than at its turn, one re-check period after the one before.
                            if (covered != null) {
                                covered.forEach(AcquireOperation::recheckNow);
                            }
                        }
                    } else if (outcome instanceof Attempt.Acquired acquired) {
                        cancel(wake);
                        onAcquired(acquired.token(), sentAt, acquired.lossSignal());
                    } else {
                        onHeld((Attempt.Held) outcome, wake);
                    }
                });
    }

    /**
     * Another waiter's attempt, sent at {@code sentAtNanos}, re-checks for this one: the backend
     * renews this waiter's registration with that attempt's stamp, so a handoff may echo it, and it
     * is trusted as this waiter's own (the registration it names preceded the handoff).
     */
    private void coveredAt(long sentAtNanos) {
        recentStamps.record(sentAtNanos);
        lastSentNanos = sentAtNanos;
    }

    /** Wakes this operation, if it waits, to attempt at once. */
    private void recheckNow() {
        CompletableFuture<Wake> waiting = pendingWait.get();
        if (waiting != null) {
            waiting.complete(Wake.RETRY);
        }
    }

    private void onAcquired(long token, long sentAtNanos, CompletionStage<String> lossSignal) {
        if (!granted.compareAndSet(false, true)) {
            return;
        }
        // Before the lease exists: a client closing meanwhile ends it at once, after its grant.
        trace.granted();
        // The lease takes over this operation's place in the local queue (the next local operation
        // goes when the lease ends), and keeps nothing of this operation: it may be held for hours.
        // The place changes hands only once the lease is registered, so a closing client finds
        // either this operation or the lease.
        WaitQueues queues = engine.queues();
        WaitQueues.Key key = lock.queueKey();
        WaitQueues.Holding place = new WaitQueues.Holding();
        ManagedLease lease = engine.newLease(lock, holder, token, sentAtNanos, requester, trace,
                ended -> queues.leave(key, place));
        queues.hold(key, this, place);
        if (lossSignal != null) {
            lossSignal.whenComplete((reason, error) -> lease.markLost(LossReason.BACKEND, reason != null ? reason
                    : "the backend reported the lease lost" + (error == null ? "" : ": " + Futures.unwrap(error))));
        }
        ReleaseSignal subscribed = signal.getAndSet(null);
        CompletableFuture<Void> left = subscribed == null ? CompletableFuture.completedFuture(null)
                : subscribed.unsubscribeLater().exceptionally(error -> null);
        left.whenComplete((ignored, error) -> cleanedUp.complete(null));
        if (blockingCaller) {
            deliver(lease);
        } else {
            engine.callbackExecutor().execute(() -> deliver(lease));
        }
    }

    private void deliver(ManagedLease lease) {
        if (!result.complete(lease)) {
            lease.discard();
        }
    }

    private void onHeld(Attempt.Held held, CompletableFuture<Wake> wake) {
        // Not waited for: the attempt's own wake ends too, since a backend's wake can be a watch on
        // the server (etcd's) that would otherwise stay open until the holder's key went.
        if (result.isDone()) {
            cancel(wake);
            cancelOwn(held);
            return;
        }
        long untilDeadline = wait == null ? Long.MAX_VALUE : waitDeadlineNanos - System.nanoTime();
        if (untilDeadline <= 0) {
            cancel(wake);
            cancelOwn(held);
            fail(timedOut());
            return;
        }
        if (wake == null && held.wake() == null) {
            subscribeThenRetry();
            return;
        }
        // Whichever comes first: the re-check timer (or this waiter's turn in its group, and the end
        // of its wait), a notification for this waiter, or the backend's own wake for this attempt.
        CompletableFuture<Wake> first = new CompletableFuture<>();
        CompletableFuture<?> timer;
        CompletableFuture<Void> waitEnds = null;
        if (lock.protocol().coversWaiters()) {
            long recheck = engine.waitPolicy().recheckDelayNanos(held.remaining(), Long.MAX_VALUE, lock.options().ttl());
            long period = engine.waitPolicy().recheckDelayNanos(null, Long.MAX_VALUE, lock.options().ttl());
            CompletableFuture<List<AcquireOperation>> turn = engine.rechecks().join(lock.queueKey(), this, arrival,
                    recheck, period);
            turn.thenAccept(others -> {
                covering.set(others);
                if (!first.complete(Wake.RETRY)) {
                    covering.compareAndSet(others, null);
                }
            });
            timer = turn;
            if (wait != null) {
                waitEnds = engine.scheduler().delay(untilDeadline);
                waitEnds.thenRun(() -> first.complete(Wake.RETRY));
            }
        } else {
            CompletableFuture<Void> delay = engine.scheduler().delay(
                    engine.waitPolicy().recheckDelayNanos(held.remaining(), untilDeadline, lock.options().ttl()));
            delay.thenRun(() -> first.complete(Wake.RETRY));
            timer = delay;
        }
        CompletableFuture<Void> deadline = waitEnds;
        if (wake != null) {
            wake.thenAccept(first::complete);
        }
        if (held.wake() != null) {
            held.wake().thenAccept(first::complete);
        }
        pendingWait.set(first);
        first.whenComplete((why, error) -> {
            timer.cancel(false);
            cancel(deadline);
            cancel(wake);
            cancelOwn(held);
            if (why instanceof Wake.Granted handoff && recentStamps.contains(handoff.stamp())) {
                onAcquired(handoff.token(), handoff.stamp(), null);
            } else {
                attempt();
            }
        });
        if (result.isDone()) {
            first.cancel(false);
        }
    }

    private void subscribeThenRetry() {
        ReleaseSignal subscription = lock.protocol().subscribe(lock.name(), holder);
        signal.set(subscription);
        subscription.ready()
                .orTimeout(engine.settings().operationTimeout().toNanos(), TimeUnit.NANOSECONDS)
                .whenComplete((ignored, error) -> {
                    if (error != null) {
                        fail(Futures.translate(error, lock.protocol().describe(),
                                "the subscription to release notifications of '" + lock.name() + "'"));
                    } else {
                        attempt();
                    }
                });
        // Finished meanwhile (cancelled, failed, or even acquired): the cleanup that ran may not
        // have seen this subscription. Only drop it: abandoning here could delete a lock just won.
        if (result.isDone()) {
            unsubscribe();
        }
    }

    /**
     * The client is closing: cleans up now, on the closing thread, while the connection is still
     * open (an abandon deferred to the callback executor could find it closed), then fails the
     * operation.
     *
     * @return completes when the clean-up is done
     */
    CompletableFuture<Void> abandonOnClose(LeaseholdException error) {
        cleanup();
        fail(error);
        return cleanedUp;
    }

    /** Fails the operation (once) and cleans up. */
    void fail(LeaseholdException error) {
        if (error instanceof LockUnavailableException) {
            unavailabilityReported = true;
        }
        if (blockingCaller) {
            if (result.completeExceptionally(error)) {
                cleanup();
            }
            return;
        }
        engine.callbackExecutor().execute(() -> {
            if (result.completeExceptionally(error)) {
                cleanup();
            }
        });
    }

    private void cleanup() {
        ending = true;
        cancelQueuedTimeout();
        cancel(pendingWait.getAndSet(null));
        // A Redlock round may be between retries: it must not start another once the engine gave up.
        cancel(inFlight.getAndSet(null));
        if (!cleanupStarted.compareAndSet(false, true)) {
            unsubscribe();
            return;
        }
        CompletableFuture<Void> abandoned = new CompletableFuture<>();
        if (talkedToBackend) {
            // Before it leaves the queue: a closing client finds this operation or its clean-up.
            engine.trackCleanup(cleanedUp);
            abandonOnceSettled(lastCall.get(), abandoned, lastSentNanos + lock.options().ttl().toNanos());
        } else {
            abandoned.complete(null);
        }
        // After the abandon is on the wire, or waits for the last attempt to settle: the next local
        // operation's attempt queues behind it, or finds that attempt's grant and is woken by the abandon.
        engine.queues().leave(lock.queueKey(), this);
        abandoned.thenCompose(ignored -> unsubscribe())
                .whenComplete((ignored, error) -> cleanedUp.complete(null));
    }

    /**
     * {@link #abandon} once the work of {@code call} (the last attempt sent) has ended on the backend,
     * not merely its future: an abandon that landed before that attempt's grant would leave a lease
     * held by nobody for the whole ttl. At {@code giveUpAtNanos} whatever that attempt took has
     * expired, so the abandon goes then at the latest.
     */
    private void abandonOnceSettled(CompletableFuture<Attempt> call, CompletableFuture<Void> done, long giveUpAtNanos) {
        CompletableFuture<Void> settled = new CompletableFuture<>();
        if (call == null) {
            settled.complete(null);
        } else {
            SettlingFuture.settledOf(call).thenRun(() -> settled.complete(null));
        }
        if (!settled.isDone()) {
            settled.completeOnTimeout(null, Math.max(0, giveUpAtNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        settled.thenRun(() -> abandon(done, giveUpAtNanos, FIRST_CLEANUP_RETRY_NANOS));
    }

    /**
     * Tells the backend to forget this waiter and to free the lock if a late attempt took it. A
     * failure (typically a reset connection that rejects calls until it reconnects) is retried
     * with a growing delay until {@code giveUpAtNanos}, the end of the last attempt's ttl: after
     * it, whatever that attempt took has expired on its own.
     */
    private void abandon(CompletableFuture<Void> done, long giveUpAtNanos, long retryDelayNanos) {
        lock.timeouts().bound(lock.protocol().abandon(lock.name(), holder)).whenComplete((ignored, error) -> {
            if (error == null) {
                done.complete(null);
                return;
            }
            String cause = Futures.unwrap(error).toString();
            if (engine.isClosed() || System.nanoTime() + retryDelayNanos - giveUpAtNanos >= 0) {
                // The caller already holds an exception saying the backend is unreachable: one
                // event, one line. Otherwise (a cancel, a timeout) this is the only word of it.
                if (unavailabilityReported) {
                    LOG.debug("Cleanup after a failed acquire of '{}' gave up; anything it took expires by its ttl: {}",
                            lock.name(), cause);
                } else {
                    LOG.warn("Cleanup after an abandoned acquire of '{}' failed; anything it took expires by its ttl: {}",
                            lock.name(), cause);
                }
                done.complete(null);
                return;
            }
            LOG.debug("Cleanup after an abandoned acquire of '{}' failed, retrying in {} ms: {}",
                    lock.name(), TimeUnit.NANOSECONDS.toMillis(retryDelayNanos), cause);
            try {
                engine.scheduler().schedule(() -> abandon(done, giveUpAtNanos,
                        Math.min(2 * retryDelayNanos, MAX_CLEANUP_RETRY_NANOS)), retryDelayNanos);
            } catch (RejectedExecutionException closed) {
                done.complete(null);
            }
        });
    }

    private CompletableFuture<Void> unsubscribe() {
        ReleaseSignal subscribed = signal.getAndSet(null);
        if (subscribed == null) {
            return CompletableFuture.completedFuture(null);
        }
        return subscribed.unsubscribe().exceptionally(error -> null);
    }

    /** Cancels the wake a backend gave this attempt ({@link Attempt.Held#wake()}), if any. */
    private static void cancelOwn(Attempt.Held held) {
        if (held.wake() instanceof CompletableFuture<Wake> own) {
            own.cancel(false);
        }
    }

    private static void cancel(CompletableFuture<?> future) {
        if (future != null) {
            future.cancel(false);
        }
    }
}
