package dev.leasehold.redis;

import dev.leasehold.engine.EngineSemaphore;
import dev.leasehold.spi.Args;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.LockOptions;
import dev.leasehold.PermitsMismatchException;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.RedisDeployment;
import dev.leasehold.redis.internal.RedisErrors;
import dev.leasehold.redis.internal.ReleaseChannels;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What every semaphore of one {@link RedisLockClient} shares: the connection, scripts, release
 * channels and engine, and one renewal batch, so the permits of all its semaphores that fall due
 * together are renewed in one script call per chunk.
 */
final class RedisSemaphores {

    /** The code semaphore_acquire.lua fails with when live leases hold the name with another number. */
    private static final String MISMATCH = "LEASEHOLD_PERMITS_MISMATCH";

    private final RedisClusterAsyncCommands<String, String> commands;
    private final RedisScripts scripts;
    private final ReleaseChannels channels;
    private final LeaseEngine engine;
    /**
     * One protocol per number of permits, shared by every semaphore object with that number: the
     * engine keys its local bookkeeping (queues, Java views) by protocol and name.
     */
    private final Map<Integer, RedisSemaphoreProtocol> protocols = new ConcurrentHashMap<>();
    private final String server;
    private final String fenceRetentionMillis;
    private final String waiterRegistrationMillis;
    private final Duration commandTimeout;
    private final Duration operationTimeout;
    private final RenewalBatch renewals;

    /**
     * @param commandTimeout the Lettuce client's own command timeout when Leasehold set it, else null
     */
    RedisSemaphores(RedisDeployment deployment, RedisScripts scripts, ReleaseChannels channels,
                    LeaseEngine engine, String server, Duration fenceRetention, Duration waiterRegistration,
                    Duration commandTimeout, Duration operationTimeout) {
        this.commands = deployment.commands();
        this.scripts = scripts;
        this.channels = channels;
        this.engine = engine;
        this.server = server;
        this.fenceRetentionMillis = Long.toString(fenceRetention.toMillis());
        this.waiterRegistrationMillis = Long.toString(waiterRegistration.toMillis());
        this.commandTimeout = commandTimeout;
        this.operationTimeout = operationTimeout;
        this.renewals = new RenewalBatch(commands, scripts.renewMembers, deployment::scriptGroup,
                error -> RedisErrors.translate(server, "the renewal of a permit", error));
    }

    /**
     * A semaphore, after checking that no live lease holds the name with another number of permits.
     *
     * @throws IllegalArgumentException if the name is unusable, options is null, permits is outside
     *                                  [1, {@link DistributedSemaphore#MAX_PERMITS}], or live leases
     *                                  hold the name with another number of permits
     * @throws dev.leasehold.LockUnavailableException if the server cannot be reached
     */
    EngineSemaphore create(String name, int permits, LockOptions options) {
        LockKeys.of(Args.lockName(name));
        Args.permits(permits);
        EngineSemaphore semaphore = new EngineSemaphore(engine.lock(name, options,
                protocols.computeIfAbsent(permits, count -> new RedisSemaphoreProtocol(this, count))), permits,
                () -> available(name, permits));
        State state = state(name);
        if (state.conflictsWith(permits)) {
            throw new IllegalArgumentException(PermitsMismatchException.message(name, state.heldWith(), permits));
        }
        return semaphore;
    }

    /**
     * Permits free on {@code name} for a semaphore of {@code permits}.
     *
     * @throws PermitsMismatchException if live leases hold the name with another number of permits
     */
    int available(String name, int permits) {
        engine.ensureOpen();
        State state = state(name);
        if (state.conflictsWith(permits)) {
            throw new PermitsMismatchException(name, state.heldWith(), permits);
        }
        return Math.max(0, permits - state.live());
    }

    /**
     * A name's semaphore state on the server.
     *
     * @param heldWith the number of permits its live leases were granted under, 0 when none is live
     * @param live     leases held and not expired
     */
    private record State(int heldWith, int live) {

        boolean conflictsWith(int permits) {
            return heldWith != 0 && heldWith != permits;
        }
    }

    private State state(String name) {
        LockKeys keys = LockKeys.of(name);
        String operation = "reading the permits of '" + name + "'";
        try {
            List<Object> reply = scripts.semaphoreAvailable.<List<Object>>run(commands, ScriptOutputType.MULTI,
                    new String[] {keys.permits()}).get(operationTimeout.toNanos(), TimeUnit.NANOSECONDS);
            return new State(Math.toIntExact((Long) reply.get(0)), Math.toIntExact((Long) reply.get(1)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw RedisErrors.translate(server, operation, e);
        } catch (ExecutionException | TimeoutException e) {
            throw RedisErrors.translate(server, operation, e);
        }
    }

    /**
     * The reply, with errors typed: the permits mismatch as a {@link PermitsMismatchException},
     * anything else by {@link RedisErrors}.
     */
    <T> CompletableFuture<T> translated(CompletableFuture<T> reply, String name, int permits, String operation) {
        return reply.exceptionallyCompose(error -> {
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof RedisCommandExecutionException && cause.getMessage() != null
                    && cause.getMessage().startsWith(MISMATCH + " ")) {
                // 'LEASEHOLD_PERMITS_MISMATCH <stored> <asked> <key>'
                int heldWith = Integer.parseInt(cause.getMessage().split(" ", 4)[1]);
                return CompletableFuture.failedFuture(new PermitsMismatchException(name, heldWith, permits));
            }
            return CompletableFuture.failedFuture(RedisErrors.translate(server, operation, error));
        });
    }

    /** True when Leasehold made the Lettuce client and set its command timeout (not for a borrowed client). */
    boolean boundsCallsWithin(Duration timeout) {
        return commandTimeout != null && commandTimeout.compareTo(timeout) <= 0;
    }

    RedisClusterAsyncCommands<String, String> commands() {
        return commands;
    }

    RedisScripts scripts() {
        return scripts;
    }

    ReleaseChannels channels() {
        return channels;
    }

    RenewalBatch renewals() {
        return renewals;
    }

    String server() {
        return server;
    }

    String fenceRetentionMillis() {
        return fenceRetentionMillis;
    }

    String waiterRegistrationMillis() {
        return waiterRegistrationMillis;
    }
}
