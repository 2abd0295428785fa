package dev.leasehold.bench;

import dev.leasehold.redis.internal.RedisScript;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The floors of a handoff between clients that waits on pub/sub instead of spinning: the least
 * client work a lock can do per handoff on the same connections and threads as Leasehold's (Lettuce,
 * one command connection, one pub/sub connection, a blocked caller woken from the I/O thread).
 * No token, no watchdog, no registration expiry, no local queue. A waiter that finds the lock held
 * queues its id in one script ({@code pubsub_floor_acquire.lua}) and blocks; the release
 * ({@code pubsub_floor_release.lua}) either hands the lock straight to the oldest queued waiter and
 * publishes its id, which returns the waiter's acquire at once ({@link Mode#DIRECT}: the shape of
 * Leasehold's fair lock), or frees the lock and publishes the id, and the woken waiter tries again
 * ({@link Mode#NOTIFY}: the shape of Leasehold's mutex and of Redisson's {@code RLock}, one more
 * round trip). A waiter that hears nothing tries again after a second.
 */
final class RawPubSubAdapter implements LockAdapter {

    /** What a release does for the oldest waiter. */
    enum Mode {
        DIRECT("direct"), NOTIFY("notify");

        final String argument;

        Mode(String argument) {
            this.argument = argument;
        }
    }

    private static final RedisScript ACQUIRE = RedisScript.load("/dev/leasehold/bench/pubsub_floor_acquire.lua");
    private static final RedisScript RELEASE = RedisScript.load("/dev/leasehold/bench/pubsub_floor_release.lua");
    private static final long RECHECK_MILLIS = 1_000;

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisAsyncCommands<String, String> commands;
    private final StatefulRedisPubSubConnection<String, String> pubSub;
    private final Mode mode;
    private final String label;
    private final String ttlMillis;
    /** Blocked acquisitions by id, completed by the message naming them. */
    private final Map<String, CompletableFuture<Void>> waiting = new ConcurrentHashMap<>();

    private RawPubSubAdapter(String uri, Duration ttl, Mode mode, String label) {
        this.client = RedisClient.create(uri);
        this.connection = client.connect();
        this.commands = connection.async();
        this.pubSub = client.connectPubSub();
        this.mode = mode;
        this.label = label;
        this.ttlMillis = Long.toString(ttl.toMillis());
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String waiter) {
                CompletableFuture<Void> woken = waiting.remove(waiter);
                if (woken != null) {
                    woken.complete(null);
                }
            }
        });
    }

    static RawPubSubAdapter connect(String uri, Duration ttl, Mode mode, String label) {
        return new RawPubSubAdapter(uri, ttl, mode, label);
    }

    @Override
    public String label() {
        return label;
    }

    /** Subscribes to the name's channel before the handle is returned, so no acquire misses a release. */
    @Override
    public Handle lock(String name) {
        String channel = name + ":released";
        pubSub.sync().subscribe(channel);
        String[] keys = {name, name + ":queue"};
        return () -> {
            String id = Long.toHexString(ThreadLocalRandom.current().nextLong());
            while (true) {
                // Parked before the attempt: a release between the attempt and the wait still wakes it.
                CompletableFuture<Void> woken = new CompletableFuture<>();
                waiting.put(id, woken);
                if (ACQUIRE.<Long>run(commands, ScriptOutputType.INTEGER, keys, id, ttlMillis).join() == 1L) {
                    waiting.remove(id);
                    return held(keys, id, channel);
                }
                if (awaitWake(woken) && mode == Mode.DIRECT) {
                    // The release set the key to this id before it published: the lock is ours.
                    return held(keys, id, channel);
                }
            }
        };
    }

    private Held held(String[] keys, String id, String channel) {
        return Held.of(NO_TOKEN, () -> RELEASE.<Long>run(commands, ScriptOutputType.INTEGER, keys, id, ttlMillis,
                channel, mode.argument).join());
    }

    /** True if the message came, false if the re-check interval passed first. */
    private boolean awaitWake(CompletableFuture<Void> woken) {
        try {
            woken.get(RECHECK_MILLIS, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException recheck) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the lock", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the wait failed", e.getCause());
        }
    }

    @Override
    public void close() {
        pubSub.close();
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
