package dev.leasehold.testkit.fault;

import dev.leasehold.spi.ForwardingLockProtocol;
import dev.leasehold.spi.LockProtocol;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A deliberately broken protocol, for proving that a fault scenario's checks catch an overlap: it
 * reports every renewal the backend did not answer within 100 ms, or answered with an error, as
 * successful, so a holder cut off from its backend goes on believing in its lease after the backend
 * let it expire. Only a "renewal found another holder" answer (which needs a reachable backend)
 * ends its lease. It hides what the backend itself grants ({@link #grantedFor}) too; everything
 * else is delegated.
 */
public final class LyingRenewals extends ForwardingLockProtocol {

    public LyingRenewals(LockProtocol delegate) {
        super(delegate);
    }

    @Override
    public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
        return delegate().renew(name, holder, ttl).completeOnTimeout(true, 100, TimeUnit.MILLISECONDS)
                .exceptionally(unreachable -> true);
    }

    /**
     * None: the backend's own grant (an etcd lease's TTL) would bound the local deadline and tell the
     * cut-off holder in time, which is the very check this protocol exists to defeat.
     */
    @Override
    public Duration grantedFor(String holder, long sentAtNanos) {
        return null;
    }
}
