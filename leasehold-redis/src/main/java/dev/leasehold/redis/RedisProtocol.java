package dev.leasehold.redis;

import dev.leasehold.PermitsMismatchException;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.MutexScripts;
import dev.leasehold.redis.internal.RedisDeployment;
import dev.leasehold.redis.internal.RedisErrors;
import dev.leasehold.redis.internal.ReleaseChannels;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Admission;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.spi.RenewalRound;
import io.lettuce.core.RedisCommandExecutionException;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one protocol of every lock kind on one Redis deployment, parameterised by the kind's
 * {@link KindScripts}: acquire and release are each one script call, the renewals that fall due
 * together are one script call per {@link RenewalBatch#CHUNK} leases (per hash slot on a Cluster),
 * and waiters of every kind of one name are woken through its one release channel
 * ({@link ReleaseChannels}), so a release of one kind wakes waiters of another too.
 */
final class RedisProtocol implements LockProtocol {

    /** The code semaphore_acquire.lua fails with when live leases hold the name with another number. */
    private static final String MISMATCH = "LEASEHOLD_PERMITS_MISMATCH";

    /**
     * One deployment's connection as every kind's protocol sees it, with one renewal batch per kind
     * (the permits of all semaphores of a client share one).
     */
    static final class Server {

        private final RedisDeployment deployment;
        private final RedisScripts scripts;
        private final ReleaseChannels channels;
        private final KindScripts.Timing timing;
        private final Map<String, RenewalBatch> renewals = new ConcurrentHashMap<>();

        /**
         * @param timing how long a fence key outlives its last write, and a waiter's registration
         *               lasts without a new attempt
         */
        Server(RedisDeployment deployment, RedisScripts scripts, ReleaseChannels channels, KindScripts.Timing timing) {
            this.deployment = deployment;
            this.scripts = scripts;
            this.channels = channels;
            this.timing = timing;
        }

        /** The same scripts, channels and timing over {@code other} connections. */
        Server on(RedisDeployment other) {
            return new Server(other, scripts, channels, timing);
        }

        RedisDeployment deployment() {
            return deployment;
        }

        RedisScripts scripts() {
            return scripts;
        }

        /** The renewal batch of {@code kind}'s leases on this connection. */
        RenewalBatch renewals(KindScripts kind) {
            return renewals.computeIfAbsent(kind.kind().tag(), tag -> new RenewalBatch(deployment.commands(),
                    kind.renewals(), deployment::scriptGroup,
                    error -> RedisErrors.translate(deployment.describe(), "the renewal of a " + kind.noun(), error)));
        }
    }

    private final Server server;
    private final KindScripts kind;
    private final RenewalBatch renewals;

    RedisProtocol(Server server, KindScripts kind) {
        this.server = server;
        this.kind = kind;
        this.renewals = server.renewals(kind);
    }

    /** This protocol's kind, to build it again on another connection. */
    KindScripts scripts() {
        return kind;
    }

    @Override
    public String describe() {
        return server.deployment.describe();
    }

    @Override
    public String kind() {
        return kind.kind().tag();
    }

    @Override
    public Admission admission() {
        return kind.admission();
    }

    /** True when Leasehold made the Lettuce client and set its command timeout (not for a borrowed client). */
    @Override
    public boolean boundsCallsWithin(Duration timeout) {
        Duration commandTimeout = server.deployment.commandTimeout();
        return commandTimeout != null && commandTimeout.compareTo(timeout) <= 0;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        CompletableFuture<MutexScripts.Answer> reply = kind.acquire().run(server.deployment.commands(),
                LockKeys.of(request.name()), request, server.timing);
        return translated(reply, request.name(), "the acquire of " + kind.noun() + " '" + request.name() + "'")
                .thenApply(answer -> {
                    // Covered waiters that must attempt themselves, woken as a notification would.
                    answer.wake().forEach(waiter -> server.channels.wake(LockKeys.of(request.name()).channel(), waiter));
                    return answer.toAttempt();
                });
    }

    @Override
    public boolean coversWaiters() {
        return kind.covers();
    }

    /** An explicit extension: queued until {@link #flushRenewals()}, which the engine calls right after. */
    @Override
    public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
        return renewals.add(kind.leaseKey().apply(name), holder, ttl);
    }

    /** The watchdog's round, sent at once: one script call per chunk (and per slot on a Cluster). */
    @Override
    public void renew(RenewalRound round) {
        renewals.send(round, kind.leaseKey());
    }

    /** Sends the extensions queued in this kind's batch (every semaphore's, for a permit). */
    @Override
    public void flushRenewals() {
        renewals.flush();
    }

    RenewalBatch.Stats renewalStats() {
        return renewals.stats();
    }

    @Override
    public CompletableFuture<ReleaseOutcome> release(String name, String holder) {
        return releaseScript(name, holder, "").thenApply(ReleaseOutcome::single);
    }

    /** Keeps the lease (the lock key's life, or the member's expiry) for {@code keepFor} instead of ending it. */
    @Override
    public CompletableFuture<ReleaseOutcome> releaseHolding(String name, String holder, Duration keepFor) {
        return translated(kind.keep().run(server.deployment.commands(), LockKeys.of(name), holder, keepFor), name,
                "the release (held " + keepFor.toMillis() + " ms more) of " + kind.noun() + " '" + name + "'")
                .thenApply(ReleaseOutcome::single);
    }

    @Override
    public CompletableFuture<Void> abandon(String name, String holder) {
        return releaseScript(name, holder, holder).thenApply(ignored -> null);
    }

    private CompletableFuture<Boolean> releaseScript(String name, String holder, String waiter) {
        return translated(kind.release().run(server.deployment.commands(), LockKeys.of(name), holder, waiter,
                server.timing), name, "the release of " + kind.noun() + " '" + name + "'");
    }

    /** The name's one release channel, shared by every kind. */
    @Override
    public ReleaseSignal subscribe(String name, String holder) {
        return server.channels.subscribe(LockKeys.of(name).channel(), holder);
    }

    @Override
    public ReleaseSignal subscribeIfActive(String name, String holder) {
        return server.channels.subscribeIfActive(LockKeys.of(name).channel(), holder);
    }

    /**
     * The reply, with errors typed: a permits mismatch as a {@link PermitsMismatchException}, anything
     * else by {@link RedisErrors}, naming the server.
     */
    private <T> CompletableFuture<T> translated(CompletableFuture<T> reply, String name, String operation) {
        return reply.exceptionallyCompose(error -> {
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof RedisCommandExecutionException && cause.getMessage() != null
                    && cause.getMessage().startsWith(MISMATCH + " ")) {
                // 'LEASEHOLD_PERMITS_MISMATCH <stored> <asked> <key>'
                String[] parts = cause.getMessage().split(" ", 4);
                return CompletableFuture.failedFuture(new PermitsMismatchException(name, Integer.parseInt(parts[1]),
                        Integer.parseInt(parts[2])));
            }
            return CompletableFuture.failedFuture(RedisErrors.translate(describe(), operation, error));
        });
    }
}
