package dev.leasehold.bench;

import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.function.BiFunction;

/**
 * One of Redisson's {@link RLock}s with its watchdog ({@code lock()} without a lease time): the
 * plain {@code RLock}, {@code RFairLock} or {@code RReadWriteLock.readLock()}. No fencing token.
 */
final class RedissonAdapter implements LockAdapter {

    private final RedissonClient client;
    private final String label;
    private final BiFunction<RedissonClient, String, RLock> kind;

    private RedissonAdapter(RedissonClient client, String label, BiFunction<RedissonClient, String, RLock> kind) {
        this.client = client;
        this.label = label;
        this.kind = kind;
    }

    /** {@code RLock}. */
    static RedissonAdapter connect(String uri, Duration ttl) {
        return new RedissonAdapter(RedissonClients.connect(uri, ttl), "Redisson RLock", RedissonClient::getLock);
    }

    /** {@code RLock} on {@code client}, which the adapter shuts down on close. */
    static RedissonAdapter using(RedissonClient client, String label) {
        return new RedissonAdapter(client, label, RedissonClient::getLock);
    }

    /** {@code RFairLock}. */
    static RedissonAdapter fair(String uri, Duration ttl) {
        return new RedissonAdapter(RedissonClients.connect(uri, ttl), "Redisson RFairLock", RedissonClient::getFairLock);
    }

    /** The read lock of {@code RReadWriteLock}. */
    static RedissonAdapter read(String uri, Duration ttl) {
        return new RedissonAdapter(RedissonClients.connect(uri, ttl), "Redisson RReadWriteLock read lock",
                (client, name) -> client.getReadWriteLock(name).readLock());
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public Handle lock(String name) {
        return Handle.locking(kind.apply(client, name));
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
