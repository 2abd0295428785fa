package dev.leasehold.testkit.fault;

import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Admission;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.spi.ReleaseSignal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A deliberately broken protocol, for proving that a fault scenario's checks catch an overlap: it
 * reports every renewal the backend did not answer within 100 ms, or answered with an error, as
 * successful, so a holder cut off from its backend goes on believing in its lease after the backend
 * let it expire. Only a "renewal found another holder" answer (which needs a reachable backend)
 * ends its lease. Everything else is delegated.
 */
public final class LyingRenewals implements LockProtocol {

    private final LockProtocol delegate;

    public LyingRenewals(LockProtocol delegate) {
        this.delegate = delegate;
    }

    @Override
    public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
        return delegate.renew(name, holder, ttl).completeOnTimeout(true, 100, TimeUnit.MILLISECONDS)
                .exceptionally(unreachable -> true);
    }

    @Override
    public void flushRenewals() {
        delegate.flushRenewals();
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    @Override
    public String kind() {
        return delegate.kind();
    }

    @Override
    public Admission admission() {
        return delegate.admission();
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        return delegate.tryAcquire(request);
    }

    @Override
    public CompletableFuture<ReleaseOutcome> release(String name, String holder) {
        return delegate.release(name, holder);
    }

    @Override
    public CompletableFuture<Void> abandon(String name, String holder) {
        return delegate.abandon(name, holder);
    }

    @Override
    public ReleaseSignal subscribe(String name, String holder) {
        return delegate.subscribe(name, holder);
    }
}
