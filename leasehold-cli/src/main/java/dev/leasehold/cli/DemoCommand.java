package dev.leasehold.cli;

import dev.leasehold.launcher.RedisSentinelGroup;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.launcher.RedisServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code leasehold demo}: shows on a real Redis why a lock needs a fencing token. Without
 * {@code --redis} it starts a redis-server of its own (from the PATH, or the one shipped in the
 * jar) and stops it at the end, so it runs on a machine with nothing but a JDK.
 *
 * <p>With {@code --failover} it tells another story instead, on a master, a replica and three
 * Sentinels it starts (and stops at the end, on Ctrl-C too): a lock lost in a failover, granted
 * twice, and the stale write the fencing token refuses ({@link FailoverStory}). It exits
 * {@link ExitCodes#OK} when the guard refused the stale write, {@link ExitCodes#UNAVAILABLE} when
 * the servers could not be started or did not fail over as the story needs.
 *
 * <p>Besides the timeline, each run prints one line starting with {@value #RESULT} and made of
 * {@code key=value} pairs, for scripts and tests.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Tells the story of a lock holder that pauses past its lease, twice: against a store that "
                + "ignores fencing tokens (an update is lost) and against one that checks them (the stale "
                + "write is refused). Takes a few seconds. With --failover: a lock lost when a Redis master dies "
                + "before replicating it, granted twice, and the stale write the fencing token refuses.")
final class DemoCommand implements Callable<Integer> {

    /** Start of the machine-readable line each run prints. */
    static final String RESULT = "RESULT";

    @Spec
    private CommandSpec spec;

    @Option(names = "--redis", paramLabel = "URI",
            description = "Use this Redis instead of starting one; the demo uses the key order:123 and its "
                    + "auxiliary keys there.")
    private String uri;

    @Option(names = "--failover",
            description = "Tell the failover story instead, on a master, a replica and three Sentinels the demo "
                    + "starts, kills and stops; cannot be combined with --redis. Takes about ten seconds.")
    private boolean failover;

    @Override
    public Integer call() {
        // The timeline narrates A's lost lease; the library's own warning about it would cut the table.
        System.setProperty("org.slf4j.simpleLogger.log.dev.leasehold", "error");
        PrintWriter out = spec.commandLine().getOut();
        if (failover) {
            if (uri != null) {
                throw new ParameterException(spec.commandLine(), "--failover starts, and kills, servers of its own;"
                        + " it cannot use --redis");
            }
            return tellFailover(out);
        }
        if (uri != null) {
            tell(out, uri, null);
            return ExitCodes.OK;
        }
        RedisServer server;
        try {
            server = RedisServer.builder().start();
        } catch (RuntimeException e) {
            throw new CliException(ExitCodes.UNAVAILABLE, "cannot start an embedded redis-server: " + e.getMessage()
                    + "\nPass --redis URI to use a running Redis instead.", e);
        }
        try (server) {
            tell(out, server.uri(), "a redis-server started for this demo (pid " + server.pid() + "), stopped at the end");
        }
        return ExitCodes.OK;
    }

    /** @param embedded how to describe the embedded server, or {@code null} when the user gave one */
    private void tell(PrintWriter out, String redisUri, String embedded) {
        try (RedisLockClient a = connect(redisUri); RedisLockClient b = connect(redisUri)) {
            out.println("Leasehold demo: a lock holder pauses past its lease. What happens to the data?");
            out.println("Redis: " + a.describe() + (embedded == null ? "" : ", " + embedded));
            out.println();
            out.printf("The balance of %s is %d. Client A adds %d and client B adds %d, each by a%n",
                    DemoStory.LOCK, DemoStory.OPENING, DemoStory.A_ADDS, DemoStory.B_ADDS);
            out.printf("read-modify-write under the lock %s, so it should end at %d. A's lease lasts%n",
                    DemoStory.LOCK, DemoStory.OPENING + DemoStory.A_ADDS + DemoStory.B_ADDS);
            out.printf("%d ms, and A freezes for %d ms after reading, like a process in a long GC pause.%n",
                    DemoStory.A_LEASE.toMillis(), DemoStory.PAUSE.toMillis());
            DemoStory story = new DemoStory(a, b);
            DemoStory.Outcome unguarded = run(out, story, 1, new UnguardedBalanceStore(DemoStory.OPENING));
            DemoStory.Outcome guarded = run(out, story, 2, new GuardedBalanceStore(DemoStory.LOCK, DemoStory.OPENING));
            out.println();
            out.println("What to take from it: a lease can run out while its holder is paused, and nothing a lock");
            out.println("service does can stop that holder from writing when it wakes up; A had even checked its");
            out.printf("lease just before the pause. With the lock alone, A's stale write erased B's update (%d%n",
                    unguarded.finalBalance());
            out.printf("instead of %d). The fencing token is what protects the data: the guarded store had%n",
                    unguarded.expected());
            out.println("admitted B's higher token, so it refused A's; A learned that its lease was gone, took the");
            out.printf("lock again and applied its change on top of B's (%d). Pass lease.token() with every write%n",
                    guarded.finalBalance());
            out.println("and check it where the data lives, with a FenceGuard.");
            out.flush();
        }
    }

    private DemoStory.Outcome run(PrintWriter out, DemoStory story, int number, BalanceStore store) {
        out.println();
        out.printf("Run %d of 2: %s store (%s)%n%n", number, store.name(), store.rule());
        DemoStory.Outcome outcome = story.tell(store, new Timeline(out));
        long lost = outcome.expected() - outcome.finalBalance();
        out.println();
        out.printf("Balance: %d, expected %d: %s%n", outcome.finalBalance(), outcome.expected(), lost == 0
                ? "correct. A's stale write was refused, and A redid its change under a new lease."
                : "B's +" + DemoStory.B_ADDS + " was LOST: A overwrote it with a value computed before B wrote.");
        out.printf("%s store=%s opening=%d expected=%d final=%d lost=%d a_token=%d b_token=%d a_write=%s%s%n",
                RESULT, store.name(), DemoStory.OPENING, outcome.expected(), outcome.finalBalance(), lost,
                outcome.aToken(), outcome.bToken(), outcome.aWriteStored() ? "stored" : "refused",
                outcome.aRetryToken().isPresent() ? " a_retry_token=" + outcome.aRetryToken().getAsLong() : "");
        out.flush();
        return outcome;
    }

    private int tellFailover(PrintWriter out) {
        // Lettuce warns of every reconnect to the killed master; the timeline tells the failover.
        System.setProperty("org.slf4j.simpleLogger.log.io.lettuce", "off");
        RedisSentinelGroup group;
        try {
            group = RedisSentinelGroup.start(1, null);
        } catch (RuntimeException e) {
            throw new CliException(ExitCodes.UNAVAILABLE, "cannot start the demo's master, replica and Sentinels: "
                    + e.getMessage(), e);
        }
        try (group) {
            RedisServer master = group.master();
            RedisServer replica = group.replicas().get(0);
            out.println("Leasehold demo: a Redis failover loses a lock. What happens to the data?");
            out.printf("Started for this demo, stopped at the end: master port %d (pid %d), replica port %d (pid %d),%n",
                    master.port(), master.pid(), replica.port(), replica.pid());
            out.println("Sentinels " + group.sentinels().stream().map(s -> "port " + s.port() + " (pid " + s.pid() + ")")
                    .collect(Collectors.joining(", ")) + ".");
            out.println();
            out.printf("The balance of %s is %d. Client A adds %d and client B adds %d, each by a read-modify-write%n",
                    DemoStory.LOCK, DemoStory.OPENING, DemoStory.A_ADDS, DemoStory.B_ADDS);
            out.println("under the lock, through the Sentinels. Replication to the replica stalls, A is granted the");
            out.println("lock by the master alone, and the master dies before replicating it. The store checks tokens.");
            out.println();
            BalanceStore store = new GuardedBalanceStore(DemoStory.LOCK, DemoStory.OPENING);
            FailoverStory.Outcome outcome = new FailoverStory(group, this::connect).tell(store, out);
            out.println();
            out.printf("%s story=failover failover_ms=%d double_grant=%b a_token=%d b_token=%d a_write=%s final=%d%n",
                    RESULT, outcome.failoverMillis(), outcome.doubleGrant(), outcome.aToken(), outcome.bToken(),
                    outcome.aWriteStored() ? "stored" : "refused", outcome.finalBalance());
            out.flush();
            if (outcome.aWriteStored()) {
                throw new CliException(ExitCodes.INTERNAL, "A's late write was stored: B's token " + outcome.bToken()
                        + " is not higher than A's " + outcome.aToken() + ", which only a promoted master whose clock"
                        + " runs behind the old one's should allow (docs/redis.md, \"What a failover can lose\")");
            }
            out.println();
            out.println("What to take from it: Redis replicates asynchronously, so a failover can lose a lock that only");
            out.println("the dead master knew of, and the Sentinels' new master granted it again: for a while two");
            out.println("clients held it, and A's own check said its lease was valid. No lock service on async");
            out.println("replication can stop that. The fencing token kept the data right: B's token, drawn from the");
            out.println("new master's clock, was higher, so the store refused A's stale write. withReplicaAck narrows");
            out.println("the window (the acquire waits for a replica); the token check is what closes it.");
            out.flush();
        }
        return ExitCodes.OK;
    }

    private RedisLockClient connect(String redisUri) {
        return RedisConnect.connect(redisUri, "--redis", spec.commandLine());
    }
}
