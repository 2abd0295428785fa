package dev.leasehold.bench;

import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.List;

/**
 * Redisson's Redlock: a {@link RedissonRedLock} over one {@link RLock} per independent server,
 * each through its own client, as Redisson documents it. No fencing token.
 */
final class RedissonRedLockAdapter implements LockAdapter {

    private final List<RedissonClient> clients;

    private RedissonRedLockAdapter(List<RedissonClient> clients) {
        this.clients = clients;
    }

    static RedissonRedLockAdapter connect(List<String> uris, Duration ttl) {
        return new RedissonRedLockAdapter(uris.stream().map(uri -> RedissonClients.connect(uri, ttl)).toList());
    }

    @Override
    public String label() {
        return "RedissonRedLock (" + clients.size() + " nodes)";
    }

    @Override
    public Handle lock(String name) {
        RLock[] locks = clients.stream().map(c -> c.getLock(name)).toArray(RLock[]::new);
        return Handle.locking(new RedissonRedLock(locks));
    }

    @Override
    public void close() {
        clients.forEach(RedissonClient::shutdown);
    }
}
