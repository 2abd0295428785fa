package dev.leasehold.redis;

import dev.leasehold.LeaderInfo;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.RedisDeployment;
import dev.leasehold.redis.internal.RedisErrors;
import dev.leasehold.spi.LeaderRecords;
import io.lettuce.core.ScriptOutputType;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Leader records on Redis: a hash {@link LockKeys#leader()} beside the election's lock key, in its
 * Cluster slot, with the ttl of a term. Written by {@code leader_publish.lua} only while the term
 * holds the lock and no higher term's record is stored; read by {@code leader_read.lua} only while
 * the record's term still holds the lock, so a record outliving its term reads as nobody leading.
 */
final class RedisLeaderRecords implements LeaderRecords {

    private final RedisDeployment deployment;
    private final RedisScripts scripts;
    private final Function<String, String> keyOf;

    /** @param keyOf the lock key of an election's name (the client's key prefix and the checked name) */
    RedisLeaderRecords(RedisDeployment deployment, RedisScripts scripts, Function<String, String> keyOf) {
        this.deployment = deployment;
        this.scripts = scripts;
        this.keyOf = keyOf;
    }

    @Override
    public CompletableFuture<Boolean> publish(String name, LeaderInfo info, Duration ttl) {
        LockKeys keys = LockKeys.of(keyOf.apply(name));
        return this.<Long>translated(scripts.leaderPublish.run(deployment.commands(), ScriptOutputType.INTEGER,
                        new String[] {keys.lock(), keys.fence(), keys.leader()}, Long.toString(info.token()),
                        info.leaderId(), info.value().orElse(""), info.value().isPresent() ? "1" : "0",
                        Long.toString(ttl.toMillis())), "publishing the leader of '" + name + "'")
                .thenApply(written -> written == 1L);
    }

    @Override
    public CompletableFuture<Void> clear(String name, long token) {
        LockKeys keys = LockKeys.of(keyOf.apply(name));
        return this.<Long>translated(scripts.leaderClear.run(deployment.commands(), ScriptOutputType.INTEGER,
                new String[] {keys.leader()}, Long.toString(token)), "clearing the leader of '" + name + "'")
                .thenApply(cleared -> null);
    }

    @Override
    public CompletableFuture<Optional<LeaderInfo>> read(String name) {
        LockKeys keys = LockKeys.of(keyOf.apply(name));
        return this.<List<Object>>translated(scripts.leaderRead.run(deployment.commands(), ScriptOutputType.MULTI,
                        new String[] {keys.lock(), keys.fence(), keys.leader()}), "reading the leader of '" + name + "'")
                .thenApply(record -> record.isEmpty() ? Optional.empty() : Optional.of(new LeaderInfo(
                        (String) record.get(1), Long.parseLong((String) record.get(0)),
                        "1".equals(record.get(3)) ? Optional.of((String) record.get(2)) : Optional.empty())));
    }

    private <T> CompletableFuture<T> translated(CompletableFuture<T> reply, String operation) {
        return reply.handle((value, error) -> {
            if (error != null) {
                throw RedisErrors.translate(deployment.describe(), operation, error);
            }
            return value;
        });
    }
}
