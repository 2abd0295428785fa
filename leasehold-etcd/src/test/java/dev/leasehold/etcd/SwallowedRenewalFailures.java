package dev.leasehold.etcd;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.testkit.fault.LyingRenewals;
import io.etcd.jetcd.Client;

import java.time.Duration;

/**
 * A deliberately broken etcd mutex, for proving that the history checker catches an overlap under a
 * partition: testkit's {@link LyingRenewals} over the real protocol, on a client of one member, so a
 * holder whose member is cut off keeps believing in its lease while etcd gives the lock to another.
 */
final class SwallowedRenewalFailures implements AutoCloseable {

    private final Client client;
    private final LeaseEngine engine;
    private final LockProtocol protocol;

    /** A broken client on {@code endpoint} alone. */
    SwallowedRenewalFailures(String endpoint) {
        this.client = Client.builder().endpoints(endpoint).build();
        this.engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofMillis(500), Duration.ofSeconds(1)),
                "broken etcd " + endpoint);
        this.protocol = new LyingRenewals(new EtcdQueueProtocol(client,
                new Acquisitions(client, new Sessions(client), Duration.ofMillis(500)),
                EtcdLocks.DEFAULT_KEY_PREFIX, LockKind.MUTEX, true, "broken etcd " + endpoint));
    }

    DistributedLock lock(String name, LockOptions options) {
        return engine.lock(name, options, protocol);
    }

    @Override
    public void close() {
        engine.close();
        client.close();
    }
}
