package dev.leasehold.redis.internal;

import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The oldest Redis the scripts run on: 5.0. They read the server clock ({@code TIME}) before they
 * write, which Redis allows only with script effects replication, the default from 5.0 on
 * (earlier servers refuse the write). Everything else they use ({@code SET NX PX}, {@code PTTL},
 * sorted sets, {@code TYPE}) is older.
 *
 * <p>Public so other Redis-based backends (leasehold-redlock) check each server the same way.
 */
public final class RedisVersion {

    public static final int MINIMUM_MAJOR = 5;

    private RedisVersion() {
    }

    /**
     * Refuses a server older than {@link #MINIMUM_MAJOR}, waiting at most {@code timeout}. A server
     * that does not let this user run {@code INFO} (ACL, renamed command) is not refused: its
     * version cannot be told, and an old one then fails on the first acquire with Redis's own error.
     *
     * @throws LockUnavailableException if the server is too old or does not answer in time
     */
    public static void require(StatefulRedisConnection<String, String> connection, String server, Duration timeout) {
        try {
            check(connection, server).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw RedisErrors.translate(server, "connect", e.getCause());
        } catch (TimeoutException e) {
            throw RedisErrors.translate(server, "connect", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw RedisErrors.translate(server, "connect", e);
        }
    }

    /**
     * {@link #require} without blocking: completes when the server is recent enough (or its version
     * cannot be read), or exceptionally with a {@link LockUnavailableException} naming the version.
     */
    public static CompletableFuture<Void> check(StatefulRedisConnection<String, String> connection, String server) {
        return connection.async().info("server").toCompletableFuture().handle((info, error) -> {
            if (error != null) {
                Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                if (cause instanceof RedisCommandExecutionException) {
                    return null;
                }
                throw RedisErrors.translate(server, "connect", cause);
            }
            String found = tooOld(info);
            if (found != null) {
                throw new LockUnavailableException("Redis at " + server + ": connect failed: the server runs Redis "
                        + found + ", and Leasehold needs Redis " + MINIMUM_MAJOR + ".0 or later (its scripts read the "
                        + "server clock before writing, which older servers refuse); upgrade the server",
                        new NodeFailure(server, NodeFailure.Kind.ERROR, null));
            }
            return null;
        });
    }

    /** The major version in the text of {@code INFO server}, or -1 if it cannot be read. */
    public static int major(String info) {
        String version = version(info);
        if (version == null) {
            return -1;
        }
        int dot = version.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * The {@code redis_version} in the text of {@code INFO server} if it is older than the minimum;
     * null if it is recent enough or cannot be read (then it is not refused).
     */
    public static String tooOld(String info) {
        int major = major(info);
        return major >= 0 && major < MINIMUM_MAJOR ? version(info) : null;
    }

    private static String version(String info) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                return line.substring("redis_version:".length()).trim();
            }
        }
        return null;
    }
}
