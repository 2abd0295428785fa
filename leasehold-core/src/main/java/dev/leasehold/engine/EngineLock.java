package dev.leasehold.engine;

import dev.leasehold.spi.Args;
import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockInterruptedException;
import dev.leasehold.LockOptions;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.ReentrantLeaseLock;
import dev.leasehold.spi.LockProtocol;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@link DistributedLock} of every engine-backed backend: argument checks and the blocking
 * forms, over one {@link AcquireOperation} per acquisition.
 */
final class EngineLock implements DistributedLock {

    private final String name;
    private final LockOptions options;
    private final LeaseEngine engine;
    private final LockProtocol protocol;
    private final CallTimeouts timeouts;
    private final WaitQueues.Key queueKey;

    EngineLock(String name, LockOptions options, LeaseEngine engine, LockProtocol protocol) {
        this.name = name;
        this.options = options;
        this.engine = engine;
        this.protocol = protocol;
        this.timeouts = new CallTimeouts(engine.settings().operationTimeout(),
                protocol.boundsCallsWithin(engine.settings().operationTimeout()));
        this.queueKey = new WaitQueues.Key(protocol, name);
    }

    LockProtocol protocol() {
        return protocol;
    }

    CallTimeouts timeouts() {
        return timeouts;
    }

    WaitQueues.Key queueKey() {
        return queueKey;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public LockOptions options() {
        return options;
    }

    @Override
    public Lease acquire() {
        return await(new AcquireOperation(this, engine, null, true, false));
    }

    @Override
    public Lease acquire(Duration wait) {
        return await(new AcquireOperation(this, engine, checkedWait(wait), true, false));
    }

    @Override
    public Optional<Lease> tryAcquire(Duration wait) {
        try {
            return Optional.of(await(new AcquireOperation(this, engine, checkedWait(wait), true, true)));
        } catch (LockTimeoutException notAcquired) {
            return Optional.empty();
        }
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration wait) {
        Duration checked = checkedWait(wait);
        engine.ensureOpen();
        return new AcquireOperation(this, engine, checked, false, false).start();
    }

    /** Shared by every lock object of this client, kind and name: see {@link JavaLockViews}. */
    @Override
    public ReentrantLeaseLock asJavaLock() {
        return engine.javaLockViews().of(queueKey, this);
    }

    private Lease await(AcquireOperation operation) {
        engine.ensureOpen();
        CompletableFuture<Lease> future = operation.start();
        try {
            return future.get();
        } catch (InterruptedException interrupt) {
            abandon(operation, future);
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(name, interrupt);
        } catch (ExecutionException | CancellationException failure) {
            throw Futures.translate(failure, protocol.describe(), "the acquire of '" + name + "'");
        }
    }

    /**
     * Cancels an interrupted acquisition and waits (boundedly) until it has cleaned up. The caller's
     * future is cancelled, not the engine's: that decides atomically between a lease the engine
     * completes later (the operation discards it) and one already handed out (discarded here). The
     * engine's own future can have its lease while the caller's is not yet complete; checking the
     * caller's then would leak that lease, renewed by the watchdog, to nobody.
     */
    private void abandon(AcquireOperation operation, CompletableFuture<Lease> future) {
        if (!future.cancel(false) && !future.isCompletedExceptionally()) {
            // The interrupted caller never sees it: discarded, like a lease the engine completes after the cancel.
            ((ManagedLease) future.join()).discard();
        }
        CompletableFuture<Void> cleanedUp = operation.cleanedUp();
        long timeoutNanos = engine.settings().operationTimeout().toNanos() * 2;
        try {
            cleanedUp.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException again) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException cleanupFailed) {
            // Cleanup logs its own failure; the key, if any, expires by its ttl.
        }
    }

    private static Duration checkedWait(Duration wait) {
        return Args.within("wait", wait, Duration.ZERO, MAX_WAIT);
    }

    @Override
    public String toString() {
        return "DistributedLock[" + name + ", " + options + "]";
    }
}
