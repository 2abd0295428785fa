package dev.leasehold.redis;

import dev.leasehold.LockKind;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.MutexScripts;
import dev.leasehold.redis.internal.RedisScript;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Admission;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * One lock kind on Redis as data: its scripts and how each call's keys and arguments are built,
 * which key holds a lease (renewed and kept there), and its local admission. {@link RedisProtocol}
 * is the one protocol over every kind; a kind differs only in this record. See the {@code .lua}
 * files for the server-side steps of each script.
 *
 * @param kind      the kind served
 * @param noun      the kind in messages ("the acquire of fair lock 'x'")
 * @param admission how one client's acquisitions of one name reach the server
 * @param acquire   one acquire attempt; its reply decoded by {@link MutexScripts.Answer#of}
 * @param release   a release, or (with a waiter id) the clean-up of an abandoned acquire
 * @param renewals  the batch renewal script: {@code renew_batch.lua} for a lease held as a key,
 *                  {@code renew_members.lua} for one held as a sorted-set member
 * @param leaseKey  the key that holds a lease of the kind, from the lock name alone: it is computed for
 *                  every renewal of every held lease, so it builds that one key and no other
 * @param keep      the release within hold-at-least: keeps the lease for a while instead
 * @param covers    whether the acquire script covers the client's other waiters
 *                  ({@link dev.leasehold.spi.LockProtocol#coversWaiters()})
 */
record KindScripts(LockKind kind, String noun, Admission admission, Acquire acquire, Release release,
                   RedisScript renewals, UnaryOperator<String> leaseKey, Keep keep, boolean covers) {

    /**
     * Values every call of a client passes: how long a fence key and a waiter registration live,
     * and how long a mutex release reserves the freed key for the waiter it wakes.
     */
    record Timing(Duration fenceRetention, Duration waiterRegistration, Duration handoffReservation) {

        /**
         * How long a mutex release keeps the freed key for the waiter it wakes ({@code lib_handoff.lua}):
         * enough for a notification and one attempt, even on a busy machine; also the longest a
         * waiter that died since its last attempt holds the lock up, once.
         */
        static final Duration HANDOFF_RESERVATION = Duration.ofMillis(100);

        String fenceRetentionMillis() {
            return millis(fenceRetention);
        }

        String waiterRegistrationMillis() {
            return millis(waiterRegistration);
        }
    }

    /** Runs the kind's acquire script. */
    interface Acquire {
        CompletableFuture<MutexScripts.Answer> run(RedisClusterAsyncCommands<String, String> commands, LockKeys keys,
                                                   AcquireRequest request, Timing timing);
    }

    /**
     * Runs the kind's release script; true if the lease was the holder's and is now ended.
     * {@code waiter} is the waiter id to forget (the holder's, for an abandoned acquire), or {@code ""}.
     */
    interface Release {
        CompletableFuture<Boolean> run(RedisClusterAsyncCommands<String, String> commands, LockKeys keys,
                                       String holder, String waiter, Timing timing);
    }

    /** Keeps {@code holder}'s lease for {@code keepFor} more; true if it was the holder's. */
    interface Keep {
        CompletableFuture<Boolean> run(RedisClusterAsyncCommands<String, String> commands, LockKeys keys,
                                       String holder, Duration keepFor);
    }

    /** The scripts of {@code kind}, from the client's loaded {@code scripts}. */
    static KindScripts of(LockKind kind, RedisScripts scripts) {
        return switch (kind.tag()) {
            case "lock" -> mutex(kind, scripts);
            case "fair_lock" -> fair(kind, scripts);
            case "read" -> read(kind, scripts);
            case "write" -> write(kind, scripts);
            case "semaphore" -> permits((LockKind.Permits) kind, scripts);
            default -> throw new IllegalArgumentException("lock kind " + kind + " is not offered on Redis");
        };
    }

    /** The keys fair_release.lua takes, in their order (fair_acquire.lua takes the readers key too). */
    static String[] fairKeys(LockKeys keys) {
        return new String[] {keys.lock(), keys.fence(), keys.queue(), keys.queueInfo()};
    }

    /**
     * The mutex: the lock key, {@code SET NX PX} semantics ({@link MutexScripts}, shared with Redlock).
     * A release reserves the key for the waiter it wakes, so waiters of different clients take
     * their turns instead of losing to a client that re-acquires at once.
     */
    private static KindScripts mutex(LockKind kind, RedisScripts scripts) {
        MutexScripts mutex = scripts.mutex;
        return new KindScripts(kind, "lock", Admission.EXCLUSIVE,
                (commands, keys, request, timing) -> mutex.acquireInLockFamily(commands, keys, request.holder(),
                        request.ttl(), timing.fenceRetention(), waiterOf(request), timing.waiterRegistration()),
                (commands, keys, holder, waiter, timing) -> mutex.releaseReserving(commands, keys, holder, waiter,
                        timing.handoffReservation()),
                scripts.renewBatch, KindScripts::lockKey, keepKey(mutex), false);
    }

    /**
     * The fair lock: the lock key, and a queue every attempt registers in (its place is its arrival).
     * An attempt covers the client's other waiters ({@code fair_acquire.lua}'s ARGV[6..]).
     */
    private static KindScripts fair(LockKind kind, RedisScripts scripts) {
        return new KindScripts(kind, "fair lock", Admission.SHARED,
                (commands, keys, request, timing) -> answer(scripts.fairAcquire.run(commands, ScriptOutputType.MULTI,
                        new String[] {keys.lock(), keys.fence(), keys.queue(), keys.queueInfo(), keys.readers()},
                        fairArguments(request, timing))),
                // The release always forgets the caller's place, and passes on a lock handed to it.
                (commands, keys, holder, waiter, timing) -> released(scripts.fairRelease.run(commands,
                        ScriptOutputType.INTEGER, fairKeys(keys), holder, timing.fenceRetentionMillis(),
                        keys.channel())),
                scripts.renewBatch, KindScripts::lockKey, keepKey(scripts.mutex), true);
    }

    /** The read lock: a member of the readers set, admitted while no writer holds or waits. */
    private static KindScripts read(LockKind kind, RedisScripts scripts) {
        return new KindScripts(kind, "read lock", Admission.SHARED,
                (commands, keys, request, timing) -> answer(scripts.readAcquire.run(commands, ScriptOutputType.MULTI,
                        new String[] {keys.lock(), keys.fence(), keys.readers(), keys.writers(), keys.waiters()},
                        request.holder(), millis(request.ttl()), timing.fenceRetentionMillis(),
                        orEmpty(waiterOf(request)), timing.waiterRegistrationMillis())),
                (commands, keys, holder, waiter, timing) -> released(scripts.readRelease.run(commands,
                        ScriptOutputType.INTEGER, new String[] {keys.readers(), keys.writers(), keys.waiters()},
                        holder, waiter, keys.channel())),
                scripts.renewMembers, LockKeys::readersOf, keepMember(scripts, LockKeys::readers), false);
    }

    /** The write lock: the lock key once no live reader remains; a blocked writer registers even unsubscribed. */
    private static KindScripts write(LockKind kind, RedisScripts scripts) {
        return new KindScripts(kind, "write lock", Admission.EXCLUSIVE,
                (commands, keys, request, timing) -> answer(scripts.writeAcquire.run(commands, ScriptOutputType.MULTI,
                        new String[] {keys.lock(), keys.fence(), keys.readers(), keys.writers()},
                        request.holder(), millis(request.ttl()), timing.fenceRetentionMillis(),
                        timing.waiterRegistrationMillis())),
                (commands, keys, holder, waiter, timing) -> released(scripts.writeRelease.run(commands,
                        ScriptOutputType.INTEGER, new String[] {keys.lock(), keys.writers(), keys.waiters()},
                        holder, waiter, keys.channel())),
                scripts.renewBatch, KindScripts::lockKey, keepKey(scripts.mutex), false);
    }

    /** A permit: a member of the permits set, which also stores the number of permits while a lease lives. */
    private static KindScripts permits(LockKind.Permits kind, RedisScripts scripts) {
        String permits = Integer.toString(kind.permits());
        return new KindScripts(kind, "semaphore", Admission.SHARED,
                (commands, keys, request, timing) -> answer(scripts.semaphoreAcquire.run(commands,
                        ScriptOutputType.MULTI, new String[] {keys.permits(), keys.fence(), keys.waiters()},
                        request.holder(), millis(request.ttl()), permits, timing.fenceRetentionMillis(),
                        orEmpty(waiterOf(request)), timing.waiterRegistrationMillis())),
                (commands, keys, holder, waiter, timing) -> released(scripts.semaphoreRelease.run(commands,
                        ScriptOutputType.INTEGER, new String[] {keys.permits(), keys.waiters()}, holder, waiter,
                        keys.channel())),
                scripts.renewMembers, LockKeys::permitsOf, keepMember(scripts, LockKeys::permits), false);
    }

    /** The lock key of a name: the name itself ({@link LockKeys#lock()}), so a plain {@code SET NX} lock excludes it. */
    private static String lockKey(String name) {
        return name;
    }

    /** A lease held as the lock key: {@code release_holding.lua} sets the key's life instead of deleting it. */
    private static Keep keepKey(MutexScripts mutex) {
        return (commands, keys, holder, keepFor) -> mutex.releaseHolding(commands, keys, holder, keepFor);
    }

    /** A lease held as a member: {@code release_holding_member.lua} sets the member's expiry instead. */
    private static Keep keepMember(RedisScripts scripts, Function<LockKeys, String> set) {
        return (commands, keys, holder, keepFor) -> released(scripts.releaseHoldingMember.run(commands,
                ScriptOutputType.INTEGER, new String[] {set.apply(keys)}, holder, MutexScripts.millisUp(keepFor)));
    }

    /** fair_acquire.lua's arguments: the attempt's, then the waiters it covers. */
    private static String[] fairArguments(AcquireRequest request, Timing timing) {
        List<String> arguments = new ArrayList<>(List.of(request.holder(), millis(request.ttl()),
                timing.fenceRetentionMillis(), timing.waiterRegistrationMillis(), Long.toString(request.stamp())));
        arguments.addAll(request.covering());
        return arguments.toArray(String[]::new);
    }

    /** The waiter id an attempt registers: the holder's once it listens for releases, else none. */
    private static String waiterOf(AcquireRequest request) {
        return request.subscribed() ? request.holder() : null;
    }

    private static String orEmpty(String waiter) {
        return waiter == null ? "" : waiter;
    }

    private static CompletableFuture<MutexScripts.Answer> answer(CompletableFuture<List<Object>> reply) {
        return reply.thenApply(MutexScripts.Answer::of);
    }

    private static CompletableFuture<Boolean> released(CompletableFuture<Long> reply) {
        return reply.thenApply(ended -> ended == 1L);
    }

    private static String millis(Duration duration) {
        return Long.toString(duration.toMillis());
    }
}
