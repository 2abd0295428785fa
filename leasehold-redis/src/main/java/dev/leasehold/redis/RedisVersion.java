package dev.leasehold.redis;

import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The oldest Redis the scripts run on: 5.0. They read the server clock ({@code TIME}) before they
 * write, which Redis allows only with script effects replication, the default from 5.0 on
 * (earlier servers refuse the write). Everything else they use ({@code SET NX PX}, {@code PTTL},
 * sorted sets, {@code TYPE}) is older.
 */
final class RedisVersion {

    static final int MINIMUM_MAJOR = 5;

    private RedisVersion() {
    }

    /**
     * Refuses a server older than {@link #MINIMUM_MAJOR}. A server that does not let this user run
     * {@code INFO} (ACL, renamed command) is not refused: its version cannot be told, and an old one
     * then fails on the first acquire with Redis's own error.
     *
     * @throws LockUnavailableException if the server is too old or does not answer in time
     */
    static void require(StatefulRedisConnection<String, String> connection, String server, Duration timeout) {
        String info;
        try {
            info = connection.async().info("server").get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RedisCommandExecutionException) {
                return;
            }
            throw RedisErrors.translate(server, "connect", e);
        } catch (TimeoutException e) {
            throw RedisErrors.translate(server, "connect", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw RedisErrors.translate(server, "connect", e);
        }
        String found = tooOld(info);
        if (found != null) {
            throw new LockUnavailableException("Redis at " + server + ": connect failed: the server runs Redis "
                    + found + ", and Leasehold needs Redis " + MINIMUM_MAJOR + ".0 or later (its scripts read the "
                    + "server clock before writing, which older servers refuse); upgrade the server",
                    new NodeFailure(server, NodeFailure.Kind.ERROR, null));
        }
    }

    /**
     * The {@code redis_version} in the text of {@code INFO server} if it is older than the minimum;
     * null if it is recent enough or cannot be read (then it is not refused).
     */
    static String tooOld(String info) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                String version = line.substring("redis_version:".length()).trim();
                int dot = version.indexOf('.');
                try {
                    int major = Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
                    return major < MINIMUM_MAJOR ? version : null;
                } catch (NumberFormatException e) {
                    return null;
                }
            }
        }
        return null;
    }
}
