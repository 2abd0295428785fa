package dev.leasehold.redis;

import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.spi.Wake;

import java.util.concurrent.CompletableFuture;

/**
 * A waiter's {@link ReleaseSignal} that reports a handoff ({@link Wake.Granted}) as a
 * {@link Wake#RETRY}, for {@link ReplicaAckProtocol}. The handoff was written by the releasing
 * client's connection, which this client's {@code WAIT} does not cover (it waits only for the
 * writes of its own connection), so the waiter takes the lock by an acknowledged attempt of its
 * own instead: the fair acquire script answers a holder it handed the lock to with the handoff's
 * token and gives the key its full ttl again, a write on this client's connection after the
 * handoff, so the {@code WAIT} that follows covers the handoff too. A handoff then costs one round
 * trip and the {@code WAIT} more, the price of counting only acknowledged grants.
 */
final class HandoffAsRetry implements ReleaseSignal {

    private final ReleaseSignal inner;

    private HandoffAsRetry(ReleaseSignal inner) {
        this.inner = inner;
    }

    /** {@code signal} with its handoffs reported as retries; {@code null} stays {@code null}. */
    static ReleaseSignal of(ReleaseSignal signal) {
        return signal == null ? null : new HandoffAsRetry(signal);
    }

    @Override
    public CompletableFuture<Void> ready() {
        return inner.ready();
    }

    @Override
    public CompletableFuture<Wake> next() {
        CompletableFuture<Wake> wake = inner.next();
        CompletableFuture<Wake> retry = wake.thenApply(why -> why instanceof Wake.Granted ? Wake.RETRY : why);
        // The engine cancels the wake it no longer waits for; the inner one is parked until cancelled.
        retry.whenComplete((why, error) -> {
            if (retry.isCancelled()) {
                wake.cancel(false);
            }
        });
        return retry;
    }

    @Override
    public CompletableFuture<Void> unsubscribe() {
        return inner.unsubscribe();
    }

    @Override
    public CompletableFuture<Void> unsubscribeLater() {
        return inner.unsubscribeLater();
    }

    @Override
    public void close() {
        inner.close();
    }
}
