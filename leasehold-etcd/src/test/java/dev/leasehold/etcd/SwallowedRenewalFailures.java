package dev.leasehold.etcd;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockOptions;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Admission;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.spi.ReleaseSignal;
import io.etcd.jetcd.Client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A deliberately broken etcd mutex, for proving that the history checker catches an overlap under a
 * partition: its renewals that fail or do not answer within 100 ms count as successes, so a holder
 * whose member is cut off keeps believing in its lease while etcd gives the lock to another. Only a
 * "renewal found another holder" answer (which needs a reachable quorum) ends its lease.
 */
final class SwallowedRenewalFailures implements LockProtocol, AutoCloseable {

    private final Client client;
    private final LeaseEngine engine;
    private final LockProtocol delegate;

    /** A broken client on {@code endpoint} alone. */
    SwallowedRenewalFailures(String endpoint) {
        this.client = Client.builder().endpoints(endpoint).build();
        this.engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofMillis(500), Duration.ofSeconds(1)),
                "broken etcd " + endpoint);
        this.delegate = new EtcdQueueProtocol(client, new Acquisitions(client, Duration.ofMillis(500)),
                EtcdLocks.DEFAULT_KEY_PREFIX, "lock", QueueRule.EXCLUSIVE, Admission.EXCLUSIVE, "broken etcd " + endpoint);
    }

    DistributedLock lock(String name, LockOptions options) {
        return engine.lock(name, options, this);
    }

    @Override
    public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
        return delegate.renew(name, holder, ttl).completeOnTimeout(true, 100, TimeUnit.MILLISECONDS)
                .exceptionally(swallowed -> true);
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

    @Override
    public void close() {
        engine.close();
        client.close();
    }
}
