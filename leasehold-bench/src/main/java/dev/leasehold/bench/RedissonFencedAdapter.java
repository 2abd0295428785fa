package dev.leasehold.bench;

import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;

/** Redisson's {@link RFencedLock}: its lock with a fencing token, the peer closest to Leasehold's contract. */
final class RedissonFencedAdapter implements LockAdapter {

    private final RedissonClient client;

    private RedissonFencedAdapter(RedissonClient client) {
        this.client = client;
    }

    static RedissonFencedAdapter connect(String uri, Duration ttl) {
        return new RedissonFencedAdapter(RedissonClients.connect(uri, ttl));
    }

    @Override
    public String label() {
        return "Redisson RFencedLock";
    }

    @Override
    public Handle lock(String name) {
        RFencedLock lock = client.getFencedLock(name);
        return () -> {
            long token = lock.lockAndGetToken();
            return Held.of(token, lock::unlock);
        };
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
