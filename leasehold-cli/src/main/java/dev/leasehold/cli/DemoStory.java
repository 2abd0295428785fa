package dev.leasehold.cli;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The story the demo tells, once per store: A takes the lock with a short lease, reads the
 * balance and freezes; its lease ends; B takes the lock, adds its amount, releases; A wakes and
 * writes what it computed before the pause. On a guarded store A's write is refused, so A takes
 * the lock again and redoes its change.
 *
 * <p>A holds a fixed lease, not a renewed one: a frozen process renews nothing, its watchdog
 * thread is frozen with it. The pause lasts until B is done, so the order of events (and the
 * numbers) are the same on every run, however slow the machine.
 */
final class DemoStory {

    static final String LOCK = "order:123";
    static final long OPENING = 100;
    static final long A_ADDS = 50;
    static final long B_ADDS = 30;
    static final Duration A_LEASE = Duration.ofMillis(1000);
    static final Duration PAUSE = Duration.ofMillis(1500);
    /** How long anyone in the story waits for the lock or for the other client. */
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    /** What one telling came to: the numbers the summary and the result line print. */
    record Outcome(long finalBalance, long aToken, long bToken, boolean aWriteStored, OptionalLong aRetryToken) {
        long expected() {
            return OPENING + A_ADDS + B_ADDS;
        }
    }

    private final LockClient clientA;
    private final LockClient clientB;

    DemoStory(LockClient clientA, LockClient clientB) {
        this.clientA = clientA;
        this.clientB = clientB;
    }

    Outcome tell(BalanceStore store, Timeline timeline) {
        Lease a = clientA.lock(LOCK, LockOptions.fixedLease(A_LEASE)).acquire(PATIENCE);
        timeline.row("A", "acquires " + LOCK + " with a " + A_LEASE.toMillis() + " ms lease", a.token(), "granted");
        a.lost().thenAccept(lost -> timeline.row("A", "(frozen) its lease ends; A cannot notice", a.token(), "lease lost"));
        long readByA = store.read(a.token());
        timeline.row("A", "reads the balance", a.token(), Long.toString(readByA));
        timeline.row("A", "checks its lease before writing", a.token(),
                a.isValid() ? "valid, " + a.remaining().toMillis() + " ms left" : "not valid");
        timeline.row("A", "-- freezes (simulated GC pause) --");

        CompletableFuture<Long> bTurn = CompletableFuture.supplyAsync(() -> clientB(store, timeline), newThread("B"));
        long frozenAt = System.nanoTime();
        LockSupport.parkNanos(PAUSE.toNanos());
        long bToken = await(bTurn);
        long frozenMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt);

        timeline.row("A", "-- wakes after " + frozenMillis + " ms, carries on --");
        long aValue = readByA + A_ADDS;
        BalanceStore.Write write = store.write(aValue, a.token());
        timeline.row("A", "writes " + readByA + " + " + A_ADDS + " = " + aValue, a.token(), write.stored()
                ? aValue + " stored, B's +" + B_ADDS + " lost"
                : "REFUSED: B's token is higher");
        timeline.row("A", "releases", a.token(), a.release().name());

        OptionalLong retryToken = OptionalLong.empty();
        if (!write.stored()) {
            retryToken = OptionalLong.of(redo(store, timeline));
        }
        return new Outcome(store.current(), a.token(), bToken, write.stored(), retryToken);
    }

    /** B's whole turn, on its own thread: wait for the lock, add B's amount, release. */
    private long clientB(BalanceStore store, Timeline timeline) {
        timeline.row("B", "waits for " + LOCK);
        try (Lease b = clientB.lock(LOCK).acquire(PATIENCE)) {
            timeline.row("B", "acquires " + LOCK, b.token(), "granted");
            return add(b, "B", B_ADDS, store, timeline);
        }
    }

    /** What A does once the store told it its lease was gone: start over under a new lease. */
    private long redo(BalanceStore store, Timeline timeline) {
        try (Lease again = clientA.lock(LOCK, LockOptions.fixedLease(A_LEASE)).acquire(PATIENCE)) {
            timeline.row("A", "learns its lease was lost; acquires again", again.token(), "granted");
            return add(again, "A", A_ADDS, store, timeline);
        }
    }

    /**
     * One uninterrupted turn under {@code lease}: {@code client} reads the balance, adds
     * {@code amount}, writes it back and releases the lease, each step a timeline row.
     *
     * @return the lease's token
     */
    private static long add(Lease lease, String client, long amount, BalanceStore store, Timeline timeline) {
        long read = store.read(lease.token());
        timeline.row(client, "reads the balance", lease.token(), Long.toString(read));
        long value = read + amount;
        BalanceStore.Write write = store.write(value, lease.token());
        timeline.row(client, "writes " + read + " + " + amount + " = " + value, lease.token(),
                write.stored() ? value + " stored" : "REFUSED");
        timeline.row(client, "releases", lease.token(), lease.release().name());
        return lease.token();
    }

    private static long await(CompletableFuture<Long> turn) {
        try {
            return turn.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException(ExitCodes.INTERNAL, "the demo was interrupted");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime
                    : new CliException(ExitCodes.INTERNAL, "client B failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new CliException(ExitCodes.INTERNAL, "client B did not finish within " + Durations.format(PATIENCE));
        }
    }

    /** Runs each task on a fresh daemon thread named after the client, so no pool outlives the demo. */
    private static Executor newThread(String client) {
        return task -> {
            Thread thread = new Thread(task, "leasehold-demo-client-" + client);
            thread.setDaemon(true);
            thread.start();
        };
    }
}
