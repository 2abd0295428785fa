package dev.leasehold.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The round-trip floor: Lettuce {@code SET name id NX PX ttl} to acquire and an {@code EVALSHA}
 * compare-and-delete to release, two round trips per lock and unlock on one shared connection
 * (as Leasehold uses one). No token, no watchdog, no waiting queue: a waiter retries {@code SET}
 * back to back, which is the fastest possible handoff and the most commands per handoff.
 */
final class RawFloorAdapter implements LockAdapter {

    private static final String COMPARE_AND_DELETE = BenchLua.text("floor_release.lua");

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisAsyncCommands<String, String> commands;
    private final String releaseSha;
    private final SetArgs setArgs;

    private RawFloorAdapter(String uri, Duration ttl) {
        this.client = RedisClient.create(uri);
        this.connection = client.connect();
        // The async API and a blocking join: Lettuce's sync API adds a reflective proxy per call.
        this.commands = connection.async();
        this.releaseSha = connection.sync().scriptLoad(COMPARE_AND_DELETE);
        this.setArgs = SetArgs.Builder.nx().px(ttl.toMillis());
    }

    static RawFloorAdapter connect(String uri, Duration ttl) {
        return new RawFloorAdapter(uri, ttl);
    }

    @Override
    public String label() {
        return "raw floor";
    }

    @Override
    public Handle lock(String name) {
        String[] keys = {name};
        return () -> {
            String id = Long.toHexString(ThreadLocalRandom.current().nextLong());
            while (commands.set(name, id, setArgs).toCompletableFuture().join() == null) {
                Thread.onSpinWait();
            }
            return Held.of(NO_TOKEN,
                    () -> commands.evalsha(releaseSha, ScriptOutputType.INTEGER, keys, id).toCompletableFuture().join());
        };
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
