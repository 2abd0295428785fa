package dev.leasehold.cli;

import dev.leasehold.BrokenLock;
import dev.leasehold.LockInfo;
import dev.leasehold.LockKind;
import dev.leasehold.etcd.EtcdLockClient;
import dev.leasehold.etcd.EtcdLockInfo;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.spi.Inspector;
import dev.leasehold.zookeeper.LockQueue;
import dev.leasehold.zookeeper.ZooKeeperLockClient;

import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Core's {@link Inspector} over a backend client that does not extend
 * {@link dev.leasehold.engine.EngineLockClient} yet and so still answers in its own snapshot type.
 * Each goes away when its backend's client returns core's {@link LockInfo} itself.
 */
final class LegacyInspectors {

    private LegacyInspectors() {
    }

    /** Redis: its own snapshot, which names no kind; list and break as the client offers them. */
    static Inspector of(RedisLockClient client) {
        return new Inspector() {
            @Override
            public LockInfo inspect(String name) {
                return core(client.inspect(name));
            }

            @Override
            public List<LockInfo> list(String pattern) {
                return client.list(pattern).stream().map(LegacyInspectors::core).toList();
            }

            @Override
            public Optional<BrokenLock> breakLock(String name, String reason) {
                return client.breakLock(name, reason).map(broken -> new BrokenLock(broken.name(), broken.holder(),
                        broken.fence(), broken.by(), broken.reason()));
            }
        };
    }

    /** ZooKeeper: its queue, whose holders and kind it knows; no list, no break. */
    static Inspector of(ZooKeeperLockClient client) {
        return inspectOnly(name -> core(client.inspect(name)), "ZooKeeper");
    }

    /** etcd: its oldest holder, how many share it, the token and ttl; no list, no break. */
    static Inspector of(EtcdLockClient client) {
        return inspectOnly(name -> core(client.inspect(name)), "etcd");
    }

    private static Inspector inspectOnly(java.util.function.Function<String, LockInfo> inspect, String backend) {
        return new Inspector() {
            @Override
            public LockInfo inspect(String name) {
                return inspect.apply(name);
            }

            @Override
            public List<LockInfo> list(String pattern) {
                throw new UnsupportedOperationException("listing locks is not offered on " + backend + " yet");
            }

            @Override
            public Optional<BrokenLock> breakLock(String name, String reason) {
                throw new UnsupportedOperationException("breaking a lock is not offered on " + backend + " yet");
            }
        };
    }

    private static LockInfo core(dev.leasehold.redis.LockInfo info) {
        return new LockInfo(info.name(), Optional.empty(), info.holder().stream().toList(), info.remaining(),
                info.lastToken(), info.waiters(), info.foreign());
    }

    private static LockInfo core(LockQueue queue) {
        List<LockQueue.Entry> holders = queue.holders();
        Optional<LockKind> kind = holders.stream().findFirst().map(entry -> switch (entry.kind()) {
            case "read" -> LockKind.READ;
            case "permit" -> LockKind.permits(entry.permits());
            default -> LockKind.MUTEX;
        });
        return new LockInfo(queue.name(), kind, holders.stream().map(LockQueue.Entry::holder).toList(),
                Optional.empty(), OptionalLong.empty(), queue.waiters(), Optional.empty());
    }

    private static LockInfo core(EtcdLockInfo info) {
        Optional<LockKind> kind = info.holder().map(holder -> info.holders() > 1 ? LockKind.READ : LockKind.MUTEX);
        // etcd names the oldest holder only; the others who share it count, unnamed.
        List<String> holders = info.holder().map(oldest -> {
            List<String> all = new java.util.ArrayList<>(Collections.nCopies(info.holders(), "?"));
            all.set(0, oldest);
            return all;
        }).orElse(List.of());
        return new LockInfo(info.name(), kind, holders, info.remaining(), info.token(), info.waiters(), Optional.empty());
    }
}
