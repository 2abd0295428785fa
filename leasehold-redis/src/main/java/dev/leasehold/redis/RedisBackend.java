package dev.leasehold.redis;

import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.PermitsMismatchException;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.RedisDeployment;
import dev.leasehold.redis.internal.ReleaseChannels;
import dev.leasehold.spi.Args;
import dev.leasehold.spi.InspectedBackend;
import dev.leasehold.spi.KindProtocols;
import dev.leasehold.spi.LockProtocol;
import io.lettuce.core.ScriptOutputType;

import java.time.Duration;
import java.util.List;

/**
 * One Redis deployment (a single server, a Sentinel-followed master, or a Cluster) as the client in
 * core sees it: every {@link LockKind} through the one {@link RedisProtocol} and the kind's
 * {@link KindScripts}, wrapped for {@link LockOptions#withReplicaAck} by {@link AckedKinds} whatever
 * the kind; lock names under the client's key prefix; inspection and breaks by
 * {@link RedisInspector}; leader records by {@link RedisLeaderRecords}: a hash beside the election's
 * lock key ({@link LockKeys#leader()}), fenced by the term's token, expiring with the term's ttl.
 */
final class RedisBackend extends InspectedBackend<RedisInspector> {

    private final RedisDeployment deployment;
    private final RedisScripts scripts;
    private final ReleaseChannels channels;
    private final RedisProtocol.Server server;
    private final KindProtocols<RedisProtocol> protocols;
    /** The kinds again, on the replica-ack connection; opened on the first lock that asks for acknowledgements. */
    private final AckedKinds acked;
    private final String keyPrefix;

    RedisBackend(RedisDeployment deployment, LeaseEngine.Settings settings, Duration fenceRetention, String keyPrefix) {
        this(deployment, settings, fenceRetention, keyPrefix, new RedisScripts(deployment.shardedPubSub(), deployment.clientChannels()));
    }

    private RedisBackend(RedisDeployment deployment, LeaseEngine.Settings settings, Duration fenceRetention,
                         String keyPrefix, RedisScripts scripts) {
        super(new RedisInspector(deployment, scripts, keyPrefix, fenceRetention, settings.operationTimeout()),
                new RedisLeaderRecords(deployment, scripts, name -> key(keyPrefix, name)));
        this.deployment = deployment;
        this.keyPrefix = keyPrefix;
        this.scripts = scripts;
        // Subscriptions outlive their last waiter by a few re-check periods: a lock that is handed
        // over again soon (the contended case) needs no new SUBSCRIBE.
        this.channels = new ReleaseChannels(deployment.pubSub(), deployment.describe(),
                settings.maxRecheck().multipliedBy(3), deployment.clientChannels());
        this.server = new RedisProtocol.Server(deployment, scripts, channels,
                new KindScripts.Timing(fenceRetention, settings.waiterRegistration(),
                        KindScripts.Timing.HANDOFF_RESERVATION));
        this.protocols = new KindProtocols<>(kind -> new RedisProtocol(server, KindScripts.of(kind, scripts)));
        this.acked = new AckedKinds(server, settings.operationTimeout());
    }

    @Override
    public String describe() {
        return deployment.describe();
    }

    /**
     * The Redis key of lock {@code name}: the client's key prefix (none by default) and the name.
     *
     * @throws IllegalArgumentException if the name is unusable or the key would share another
     *                                  lock's keys (see {@link LockKeys#of(String)})
     */
    @Override
    public String lockName(String name) {
        return key(keyPrefix, name);
    }

    private static String key(String keyPrefix, String name) {
        String key = keyPrefix + Args.lockName(name);
        LockKeys.of(key);
        return key;
    }

    @Override
    public LockProtocol protocol(LockKind kind, LockOptions options) {
        return acked.protocol(plain(kind), options);
    }

    private RedisProtocol plain(LockKind kind) {
        return protocols.of(kind);
    }

    /**
     * Reads {@code semaphore_available.lua}: permits free on {@code name} for a semaphore of {@code permits}.
     *
     * @throws PermitsMismatchException if live leases hold the name with another number of permits
     * @throws dev.leasehold.LockUnavailableException if the server cannot be reached
     */
    @Override
    public int availablePermits(String name, int permits) {
        List<Object> reply = inspecting().await(scripts.semaphoreAvailable.run(deployment.commands(),
                ScriptOutputType.MULTI, new String[] {LockKeys.of(name).permits()}), "reading the permits of '"
                + name + "'");
        // {the number of permits stored, 0 when no lease is live; live leases}
        int heldWith = Math.toIntExact((Long) reply.get(0));
        int live = Math.toIntExact((Long) reply.get(1));
        if (heldWith != 0 && heldWith != permits) {
            throw new PermitsMismatchException(name, heldWith, permits);
        }
        return Math.max(0, permits - live);
    }

    /** What the mutex's renewal batches cost so far: flushes, script groups (slots) touched, script calls. */
    RenewalBatch.Stats mutexRenewalStats() {
        return plain(LockKind.MUTEX).renewalStats();
    }

    /** Channels subscribed to for waiters right now. */
    int activeSubscriptions() {
        return channels.activeChannels();
    }

    @Override
    public void close() {
        channels.close();
        acked.close();
        deployment.close();
    }
}
