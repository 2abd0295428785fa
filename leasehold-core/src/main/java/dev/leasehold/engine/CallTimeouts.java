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

    /** {@code call}, failing after {@code nanos} if that is shorter than what the backend guarantees. */
    <T> CompletableFuture<T> bound(CompletableFuture<T> call, long nanos) {
        return selfBounded && nanos >= timeoutNanos ? call : call.orTimeout(nanos, TimeUnit.NANOSECONDS);
    }
}
