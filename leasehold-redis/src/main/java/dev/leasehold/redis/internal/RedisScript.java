package dev.leasehold.redis.internal;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandType;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * One Lua script, read from a {@code .lua} resource and called by {@code EVALSHA}; when the server
 * does not know it ({@code NOSCRIPT}: first use, restart, {@code SCRIPT FLUSH}, failover), the
 * call is repeated once with {@code EVAL}, which also caches it on the server. Keys and arguments
 * always travel as data, never inside the script text.
 *
 * <p>Public so other Redis-based backends (leasehold-redlock) run their own scripts the same way.
 */
public final class RedisScript {

    private static final String INCLUDE = "-- #include ";
    /** Where the Redis kinds' {@code .lua} files live; relative names are resolved here. */
    private static final String SCRIPTS = "/dev/leasehold/redis/";

    private final String source;
    private final String sha;

    private RedisScript(String source) {
        this.source = source;
        this.sha = sha1(source);
    }

    /**
     * Reads a script. A line {@code -- #include other.lua} is replaced by that resource (from the
     * same package), so code shared by several scripts, such as the fencing sequence in
     * {@code lib_fence.lua}, lives in one {@code .lua} file.
     *
     * @param resource a file name in {@code /dev/leasehold/redis/}, or an absolute resource path
     *                 with a leading {@code /}
     * @throws IllegalStateException if the resource, or one it includes, is missing
     */
    public static RedisScript load(String resource) {
        return new RedisScript(read(resource));
    }

    private static String read(String resource) {
        String path = resource.startsWith("/") ? resource : SCRIPTS + resource;
        try (InputStream in = RedisScript.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("script resource " + resource + " is missing from the jar");
            }
            StringBuilder source = new StringBuilder();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n", -1)) {
                if (line.startsWith(INCLUDE)) {
                    source.append(read(line.substring(INCLUDE.length()).trim()));
                } else {
                    source.append(line).append('\n');
                }
            }
            return source.toString();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script " + resource, e);
        }
    }

    /**
     * This script with every {@code redis.call('publish', ...)} (and {@code redis.pcall}) made a sharded
     * {@code redis.call('spublish', ...)} (Redis 7): on a Cluster a sharded message goes to the
     * channel's slot only, instead of to every node. The channel shares the keys' hash tag (see
     * {@link LockKeys#channel()}), so the script still touches one slot.
     */
    public RedisScript withShardedPublish() {
        return new RedisScript(source.replace("redis.call('publish',", "redis.call('spublish',")
                .replace("redis.pcall('publish',", "redis.pcall('spublish',"));
    }

    /**
     * This script with waking one waiter always on the lock's shared channel ({@code lib_wake.lua}):
     * for a deployment where a script cannot tell who listens on a client's own channel, so
     * clients do not listen there (see {@link RedisDeployment#clientChannels()}).
     */
    public RedisScript withoutClientChannels() {
        return new RedisScript(source.replace("local WAKE_CLIENT_CHANNELS = true", "local WAKE_CLIENT_CHANNELS = false"));
    }

    /** This script {@link #withShardedPublish() sharded} and {@link #withoutClientChannels() without client channels} as asked. */
    public RedisScript forDeployment(boolean sharded, boolean clientChannels) {
        RedisScript script = sharded ? withShardedPublish() : this;
        return clientChannels ? script : script.withoutClientChannels();
    }

    public <T> CompletableFuture<T> run(RedisClusterAsyncCommands<String, String> commands, ScriptOutputType type,
                                 String[] keys, String... args) {
        return bySourceOnNoScript(commands.<T>evalsha(sha, type, keys, args).toCompletableFuture(),
                () -> commands.<T>eval(source, type, keys, args).toCompletableFuture());
    }

    /**
     * As {@link #run} with a {@link ScriptOutputType#MULTI} reply, for a call with many keys and
     * arguments: they are written straight into the connection's buffer ({@link BulkArgs}), without
     * an object, a temporary buffer or a string per key and argument.
     */
    public CompletableFuture<List<Object>> runMany(RedisClusterAsyncCommands<String, String> commands, String[] keys,
                                                   String[] args) {
        return bySourceOnNoScript(commands.dispatch(CommandType.EVALSHA, new NestedMultiOutput<>(StringCodec.UTF8),
                        new BulkArgs(sha, keys, args)).toCompletableFuture(),
                () -> commands.dispatch(CommandType.EVAL, new NestedMultiOutput<>(StringCodec.UTF8),
                        new BulkArgs(source, keys, args)).toCompletableFuture());
    }

    /** {@code bySha}'s outcome, or, if the server does not know the script (a restart, a failover), {@code bySource}'s. */
    private static <T> CompletableFuture<T> bySourceOnNoScript(CompletableFuture<T> bySha,
                                                               Supplier<CompletableFuture<T>> bySource) {
        return bySha.exceptionallyCompose(error -> isNoScript(error) ? bySource.get() : CompletableFuture.failedFuture(error));
    }

    private static boolean isNoScript(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return cause instanceof RedisNoScriptException;
    }

    /** The SHA-1 of {@code text} (UTF-8) in lower-case hex, as Redis's {@code redis.sha1hex} gives it. */
    static String sha1(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by every JDK", e);
        }
    }
}
