package dev.leasehold.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Bounds the engine's calls to its backend. When the backend already bounds every call by itself
 * (see {@link dev.leasehold.spi.LockProtocol#boundsCallsWithin}), no timer is set: a timer per call
 * is a second thread woken on every acquire and release, for nothing.
 */
final class CallTimeouts {

    private final long timeoutNanos;
    private final boolean selfBounded;

    CallTimeouts(Duration timeout, boolean selfBounded) {
        this.timeoutNanos = timeout.toNanos();
        this.selfBounded = selfBounded;
    }

    /** {@code call}, failing with a {@link java.util.concurrent.TimeoutException} after the operation timeout. */
    <T> CompletableFuture<T> bound(CompletableFuture<T> call) {
        return selfBounded ? call : call.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * When the engine fails a call that must end within {@code nanos}: after {@code nanos}, or
     * never ({@link Long#MAX_VALUE}) if the backend ends every call by itself within that.
     */
    long limitNanos(long nanos) {
        return selfBounded && nanos >= timeoutNanos ? Long.MAX_VALUE : nanos;
    }
}
