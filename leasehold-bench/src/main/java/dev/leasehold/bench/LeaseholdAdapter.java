package dev.leasehold.bench;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.redis.RedisLocks;

import java.time.Duration;

/** Leasehold's single-node Redis lock in watchdog mode, as a user gets it from {@link RedisLocks#connect}. */
final class LeaseholdAdapter implements LockAdapter {

    private final LockClient client;
    private final LockOptions options;
    private final String label;

    LeaseholdAdapter(LockClient client, Duration ttl, String label) {
        this.client = client;
        this.options = LockOptions.watchdog(ttl);
        this.label = label;
    }

    static LeaseholdAdapter connect(String uri, Duration ttl) {
        return new LeaseholdAdapter(RedisLocks.connect(uri), ttl, "Leasehold");
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public Handle lock(String name) {
        DistributedLock lock = client.lock(name, options);
        return () -> {
            Lease lease = lock.acquire();
            return new Held() {
                @Override
                public long token() {
                    return lease.token();
                }

                @Override
                public void release() {
                    lease.release();
                }
            };
        };
    }

    @Override
    public void close() {
        client.close();
    }
}
