package dev.leasehold.redlock;

import dev.leasehold.LeaseholdException;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.redis.internal.LettuceConnections;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.MutexScripts;
import dev.leasehold.redis.internal.RedisEndpoint;
import dev.leasehold.redis.internal.RedisErrors;
import dev.leasehold.redis.internal.RedisVersion;
import dev.leasehold.redis.internal.ReleaseChannels;
import dev.leasehold.spi.ReleaseSignal;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One independent Redis master of a Redlock client: its command connection, its pub/sub channels,
 * and its part of each Redlock step, every call bounded by the timeout the caller gives.
 *
 * <p>The connection is opened on first use and, if that fails, again on the next call: a node
 * that was down when the client started joins the quorum once it is back. Once open, Lettuce
 * reconnects it by itself. While disconnected, calls fail at once ({@code REFUSED}) instead of
 * queueing, so a dead node costs an attempt nothing.
 *
 * <p>Every failure completes the returned future with a {@link LockUnavailableException} holding
 * exactly one {@link NodeFailure} for this node; {@link #failureOf(Throwable)} extracts it.
 */
final class RedlockNode implements AutoCloseable {

    private final RedisEndpoint endpoint;
    private final RedisClient client;
    private final RedlockScripts scripts;
    private final ReleaseChannels channels;
    private final AtomicReference<CompletableFuture<StatefulRedisConnection<String, String>>> connection =
            new AtomicReference<>();
    private volatile boolean closed;

    /** Pause between the tries of {@link #releaseEventually}: about one reconnect of a node that is back. */
    private static final Duration CLEANUP_RETRY = Duration.ofMillis(200);

    RedlockNode(RedisEndpoint endpoint, RedisClient client, RedlockScripts scripts) {
        this.endpoint = endpoint;
        this.client = client;
        this.scripts = scripts;
        // Quorum waiters unsubscribe at once (QuorumReleaseSignal), so nothing lingers here.
        this.channels = new ReleaseChannels(client, endpoint, Duration.ZERO);
    }

    /** Scheme, host, port and database: never the credentials. */
    String describe() {
        return endpoint.describe();
    }

    /** Opens the connection (if not open yet) and completes when it is usable. */
    CompletableFuture<Void> connect(Duration timeout) {
        return bounded(commands().thenApply(commands -> null), timeout, "connect");
    }

    /** Runs acquire.lua: the lock key for {@code holder} plus this node's advanced counter, or the holder's pttl. */
    CompletableFuture<NodeAnswer> acquire(LockKeys keys, String holder, Duration ttl, String waiter,
                                          RedlockSettings settings, Duration timeout) {
        CompletableFuture<MutexScripts.Answer> reply = commands().thenCompose(commands -> scripts.mutex.acquire(commands,
                keys, holder, ttl, settings.fenceRetention(), waiter, settings.engine().waiterRegistration()));
        return bounded(reply, timeout, "the acquire of '" + keys.lock() + "'").thenApply(answer ->
                answer instanceof MutexScripts.Answer.Granted granted
                        ? new NodeAnswer.Granted(granted.token())
                        : new NodeAnswer.Held(((MutexScripts.Answer.Held) answer).pttlMillis()));
    }

    /** Runs fence.lua: raises this node's counter to at least {@code token}. */
    CompletableFuture<Long> writeBack(LockKeys keys, long token, Duration fenceRetention, Duration timeout) {
        // fence.lua answers with a decimal string, exact above 2^53.
        CompletableFuture<String> reply = commands().thenCompose(commands -> scripts.fence.run(commands,
                ScriptOutputType.VALUE, new String[] {keys.fence()}, Long.toString(token), millis(fenceRetention)));
        return bounded(reply, timeout, "the token write-back of '" + keys.lock() + "'").thenApply(Long::parseLong);
    }

    /** Runs renew.lua: true if the key was still ours here and now lives for {@code ttl}. */
    CompletableFuture<Boolean> renew(LockKeys keys, String holder, Duration ttl, Duration timeout) {
        return bounded(commands().thenCompose(commands -> scripts.mutex.renew(commands, keys, holder, ttl)),
                timeout, "the renewal of '" + keys.lock() + "'");
    }

    /**
     * Runs release.lua: deletes the key if it is ours, forgets {@code waiter} (may be {@code null})
     * and wakes a waiter registered here.
     *
     * @return true if the key was ours here
     */
    CompletableFuture<Boolean> release(LockKeys keys, String holder, String waiter, Duration timeout) {
        return bounded(commands().thenCompose(commands -> scripts.mutex.release(commands, keys, holder, waiter)),
                timeout, "the release of '" + keys.lock() + "'");
    }

    /**
     * Runs release_holding.lua: if the key is ours here, sets its life to {@code keepFor} instead
     * of deleting it ({@link dev.leasehold.LockOptions#holdAtLeast}); a node where it is not ours is untouched.
     *
     * @return true if the key was ours here
     */
    CompletableFuture<Boolean> releaseHolding(LockKeys keys, String holder, Duration keepFor, Duration timeout) {
        return bounded(commands().thenCompose(commands -> scripts.mutex.releaseHolding(commands, keys, holder, keepFor)),
                timeout, "the release (held " + keepFor.toMillis() + " ms more) of '" + keys.lock() + "'");
    }

    /**
     * Releases until a call gets through or {@code giveUpAtNanos} passes, retrying every
     * {@link #CLEANUP_RETRY}: the clean-up after a round whose acquire on this node failed or went
     * unanswered. That acquire may still have run (its reply lost to a reset connection), and
     * while the node is disconnected a call is refused at once rather than queued, so one try
     * could leave the key for its whole ttl.
     *
     * @return the first try's answer; the retries run in the background
     */
    CompletableFuture<Boolean> releaseEventually(LockKeys keys, String holder, String waiter, Duration timeout,
                                                 long giveUpAtNanos) {
        CompletableFuture<Boolean> first = release(keys, holder, waiter, timeout);
        first.whenComplete((released, error) -> {
            if (error != null && !closed && System.nanoTime() + CLEANUP_RETRY.toNanos() - giveUpAtNanos < 0) {
                CompletableFuture.delayedExecutor(CLEANUP_RETRY.toNanos(), TimeUnit.NANOSECONDS)
                        .execute(() -> releaseEventually(keys, holder, waiter, timeout, giveUpAtNanos));
            }
        });
        return first;
    }

    /** Subscribes to this node's release notifications for {@code keys}. */
    ReleaseSignal subscribe(LockKeys keys, String waiter) {
        return channels.subscribe(keys.channel(), waiter);
    }

    /** This node's failure behind an error completed by one of its calls. */
    NodeFailure failureOf(Throwable error) {
        LeaseholdException translated = RedisErrors.translate(describe(), "a call", error);
        if (translated instanceof LockUnavailableException unavailable && !unavailable.failures().isEmpty()) {
            return unavailable.failures().get(0);
        }
        return new NodeFailure(describe(), NodeFailure.Kind.ERROR, translated);
    }

    @Override
    public void close() {
        closed = true;
        channels.close();
        CompletableFuture<StatefulRedisConnection<String, String>> current = connection.getAndSet(null);
        if (current != null) {
            current.thenAccept(StatefulRedisConnection::close);
        }
    }

    private CompletableFuture<RedisAsyncCommands<String, String>> commands() {
        CompletableFuture<StatefulRedisConnection<String, String>> current = connection.get();
        if (current == null || current.isCompletedExceptionally()) {
            CompletableFuture<StatefulRedisConnection<String, String>> opening = new CompletableFuture<>();
            if (connection.compareAndSet(current, opening)) {
                open(opening);
                current = opening;
            } else {
                current = connection.get();
                if (current == null) {
                    return CompletableFuture.failedFuture(new IllegalStateException("the Redlock client is closed"));
                }
            }
        }
        return current.thenApply(StatefulRedisConnection::async);
    }

    private void open(CompletableFuture<StatefulRedisConnection<String, String>> opening) {
        if (closed) {
            opening.completeExceptionally(new IllegalStateException("the Redlock client is closed"));
            return;
        }
        LettuceConnections.connect(client, endpoint).thenCompose(opened -> RedisVersion.check(opened, describe())
                .handle((recentEnough, tooOld) -> {
                    if (tooOld != null) {
                        opened.closeAsync();
                        throw tooOld instanceof CompletionException wrapped ? wrapped : new CompletionException(tooOld);
                    }
                    return opened;
                })).whenComplete((opened, error) -> {
            if (error != null) {
                opening.completeExceptionally(error);
            } else if (closed) {
                // close() ran while this connection was opening: it must not outlive the client.
                opened.closeAsync();
                opening.completeExceptionally(new IllegalStateException("the Redlock client is closed"));
            } else {
                opening.complete(opened);
            }
        });
    }

    private <T> CompletableFuture<T> bounded(CompletableFuture<T> reply, Duration timeout, String operation) {
        return reply.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS).exceptionallyCompose(error -> {
            // orTimeout's own exception has no message; say which bound the node missed.
            Throwable cause = error instanceof TimeoutException
                    ? new TimeoutException("no answer within the per-node timeout of " + timeout.toMillis() + " ms")
                    : error;
            return CompletableFuture.failedFuture(RedisErrors.translate(describe(), operation, cause));
        });
    }

    private static String millis(Duration duration) {
        return Long.toString(duration.toMillis());
    }
}
