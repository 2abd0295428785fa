package dev.leasehold.cli;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisSentinelGroup;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLockClient;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The failover story {@code leasehold demo --failover} tells on a master, one replica and three
 * Sentinels of its own: A is granted the lock by the master alone (the replica is frozen and its
 * link cut, so nothing is replicated), A reads the balance, the master is killed, the Sentinels
 * promote the replica, which never saw A's lock, and grant it to B while A's lease is still valid.
 * B writes; A's late write, computed before B's, reaches a store guarded by fencing tokens and is
 * refused, because B's token, drawn from the promoted master's clock, is higher.
 *
 * <p>This is the same staging as {@code SentinelFailoverTest} in leasehold-redis.
 */
final class FailoverStory {

    /** A's lease outlives any failover the Sentinels complete in their 30 s limit, so A is still a holder when B is. */
    static final Duration A_LEASE = Duration.ofSeconds(45);
    /** How long B tries: the promoted replica grants at once unless it had A's lock after all. */
    private static final Duration B_PATIENCE = Duration.ofSeconds(3);

    /** What one telling came to, for the summary, the result line and the exit code. */
    record Outcome(long aToken, long bToken, long failoverMillis, boolean doubleGrant, boolean aWriteStored,
                   long finalBalance) {
    }

    private final RedisSentinelGroup group;
    private final Function<String, RedisLockClient> connect;

    /** @param connect opens a client on the group's Sentinel URI */
    FailoverStory(RedisSentinelGroup group, Function<String, RedisLockClient> connect) {
        this.group = group;
        this.connect = connect;
    }

    /**
     * Tells the story once on {@code store}, as a {@link Timeline} printed to {@code out}.
     *
     * @throws CliException with {@link ExitCodes#UNAVAILABLE} if the servers did not play their part:
     *                      no promotion within the Sentinels' limit, or the promoted replica had A's lock
     */
    Outcome tell(BalanceStore store, PrintWriter out) {
        RedisServer master = group.master();
        RedisServer replica = group.replicas().get(0);
        try (RedisLockClient clientA = connect.apply(group.uri())) {
            // Started once A is connected, so the first row is not the client's start-up.
            Timeline timeline = new Timeline(out);
            replica.pause();
            // A frozen replica still has the stream in its socket buffer: cut the link as well.
            master.command("CLIENT", "KILL", "TYPE", "replica");
            timeline.row("ops", "freezes the replica, cuts its link", "replication stalls");

            Lease a = clientA.lock(DemoStory.LOCK, LockOptions.fixedLease(A_LEASE)).acquire(Duration.ofSeconds(5));
            timeline.row("A", "acquires " + DemoStory.LOCK + " (" + A_LEASE.toSeconds() + " s lease)", a.token(),
                    "granted by the master only");
            long readByA = store.read(a.token());
            timeline.row("A", "reads the balance", a.token(), Long.toString(readByA));
            timeline.row("A", "-- stalls before writing (GC, slow disk) --");

            long killedAt = System.nanoTime();
            master.kill();
            timeline.row("ops", "kills the master (SIGKILL), port " + master.port(), "lock never replicated");
            replica.resume();
            RedisServer promoted = awaitPromotion(master);
            long failoverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            timeline.row("ops", "Sentinels promote the replica, port " + promoted.port(),
                    "after " + failoverMillis + " ms");

            Outcome outcome;
            try (RedisLockClient clientB = connect.apply(group.uri())) {
                boolean free = clientB.inspect(DemoStory.LOCK).holder().isEmpty();
                timeline.row("B", "inspects " + DemoStory.LOCK + " on the new master", free ? "free" : "held");
                Optional<Lease> granted = clientB.lock(DemoStory.LOCK, LockOptions.fixedLease(A_LEASE))
                        .tryAcquire(B_PATIENCE);
                if (granted.isEmpty()) {
                    throw new CliException(ExitCodes.UNAVAILABLE, "the promoted replica had A's lock after all (it was"
                            + " replicated before the master died), so B was refused and there was no double grant"
                            + " to show; run the demo again");
                }
                Lease b = granted.get();
                boolean doubleGrant = a.isValid();
                timeline.row("B", "acquires " + DemoStory.LOCK, b.token(), doubleGrant
                        ? "granted: TWO HOLDERS, A's lease is valid" : "granted (A's lease had ended)");
                long readByB = store.read(b.token());
                timeline.row("B", "reads the balance", b.token(), Long.toString(readByB));
                long bValue = readByB + DemoStory.B_ADDS;
                BalanceStore.Write bWrite = store.write(bValue, b.token());
                timeline.row("B", "writes " + readByB + " + " + DemoStory.B_ADDS + " = " + bValue, b.token(),
                        bWrite.stored() ? bValue + " stored" : "REFUSED");

                timeline.row("A", "-- carries on --");
                timeline.row("A", "checks its lease before writing", a.token(),
                        a.isValid() ? "valid, " + a.remaining().toMillis() + " ms left" : "not valid");
                long aValue = readByA + DemoStory.A_ADDS;
                BalanceStore.Write aWrite = store.write(aValue, a.token());
                timeline.row("A", "writes " + readByA + " + " + DemoStory.A_ADDS + " = " + aValue, a.token(),
                        aWrite.stored() ? aValue + " stored, B's +" + DemoStory.B_ADDS + " lost"
                                : "REFUSED: B's token is higher");
                timeline.row("B", "releases", b.token(), b.release().name());
                outcome = new Outcome(a.token(), b.token(), failoverMillis, doubleGrant, aWrite.stored(), store.current());
            }
            timeline.row("A", "releases", a.token(), a.release().name());
            return outcome;
        }
    }

    private RedisServer awaitPromotion(RedisServer oldMaster) {
        try {
            return group.awaitNewMaster(oldMaster);
        } catch (IllegalStateException e) {
            throw new CliException(ExitCodes.UNAVAILABLE, "the Sentinels did not promote the replica in time ("
                    + e.getMessage() + "); the machine may be too busy, run the demo again", e);
        }
    }
}
