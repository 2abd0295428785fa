package dev.leasehold.bench;

import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;

/** Redisson's {@link RLock} with its watchdog ({@code lock()} without a lease time). No fencing token. */
final class RedissonAdapter implements LockAdapter {

    private final RedissonClient client;

    private RedissonAdapter(RedissonClient client) {
        this.client = client;
    }

    static RedissonAdapter connect(String uri, Duration ttl) {
        return new RedissonAdapter(RedissonClients.connect(uri, ttl));
    }

    @Override
    public String label() {
        return "Redisson RLock";
    }

    @Override
    public Handle lock(String name) {
        RLock lock = client.getLock(name);
        Held held = new Held() {
            @Override
            public long token() {
                return NO_TOKEN;
            }

            @Override
            public void release() {
                lock.unlock();
            }
        };
        return () -> {
            lock.lock();
            return held;
        };
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
