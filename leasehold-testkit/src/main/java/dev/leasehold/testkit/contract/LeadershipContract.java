package dev.leasehold.testkit.contract;

import dev.leasehold.LeaderInfo;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipListener;
import dev.leasehold.LeadershipOptions;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.StaleTokenException;
import dev.leasehold.testkit.history.CounterResource;
import dev.leasehold.testkit.history.History;
import dev.leasehold.testkit.history.HistoryChecker;
import dev.leasehold.testkit.history.Hold;
import dev.leasehold.testkit.history.Verdict;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static dev.leasehold.testkit.junit.Eventually.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Leader election on every backend, as one abstract JUnit 5 class: a backend module extends it,
 * says how to make a client (directly, and through given addresses for the partition), and
 * inherits every test. Every leader runs its work inside {@code term.call(...)}, checking
 * {@code term.isValid()} every few milliseconds, and each term goes into a {@link History}: the
 * {@link HistoryChecker} then finds no two terms valid at once, tokens increasing term to term, and
 * no stale or lost write among the leaders' increments of a fenced counter.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
public abstract class LeadershipContract {

    /** Bound on "at once": a resigned or closed leader is replaced well before the ttl. */
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration REPLACED_WITHIN = TTL.dividedBy(2);

    private final List<AutoCloseable> resources = Collections.synchronizedList(new ArrayList<>());
    private final History history = new History();
    /** What every leader writes to while it leads, behind a fence guard: the checker sees each write. */
    private final CounterResource counter = new CounterResource(history, true);
    private String testName = "test";

    /** A new client of the backend under test; the contract closes it after the test. */
    protected abstract LockClient connect();

    /** The addresses of the backend's servers, each of which the partition test puts a fault proxy in front of. */
    protected abstract List<InetSocketAddress> servers();

    /** A client that reaches the servers only at {@code addresses} (one per {@link #servers()} entry, in order). */
    protected abstract LockClient connectVia(List<InetSocketAddress> addresses);

    /**
     * The ttl of each term in the partition test (default 3 s): the partitioned leader's lease ends
     * by its local deadline, and the others wait for the server to expire it (a ZooKeeper session
     * timeout, an etcd lease) before one of them is elected.
     */
    protected Duration partitionTtl() {
        return Duration.ofSeconds(3);
    }

    /**
     * Whether the backend keeps leader records ({@link Leadership#currentLeader()}); one that does
     * not must refuse currentLeader with an {@link UnsupportedOperationException}.
     */
    protected boolean keepsLeaderRecords() {
        return true;
    }

    @BeforeEach
    final void rememberTestName(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test") + ":" + System.nanoTime();
    }

    @AfterEach
    final void closeAll() throws Exception {
        List<AutoCloseable> reversed;
        synchronized (resources) {
            reversed = new ArrayList<>(resources);
            resources.clear();
        }
        Collections.reverse(reversed);
        for (AutoCloseable resource : reversed) {
            resource.close();
        }
    }

    private <T extends AutoCloseable> T closing(T resource) {
        resources.add(resource);
        return resource;
    }

    private String election() {
        return "leader:" + testName;
    }

    private Candidate candidate(LockClient client, String id, Duration ttl) {
        Leadership leadership = closing(client.leadership(election(), LeadershipOptions.defaults()
                .withLockOptions(LockOptions.watchdog(ttl)).withLeaderId(id).withValue(id + ":8080")));
        return new Candidate(id, leadership, history, counter);
    }

    @Test
    void oneLeaderAtATimeAmongThreeCandidatesAndAResignedOrClosedLeaderIsReplacedAtOnce() throws Exception {
        List<Candidate> candidates = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            candidates.add(candidate(closing(connect()), "node-" + i, TTL));
        }
        candidates.forEach(Candidate::start);
        long previousToken = Long.MIN_VALUE;
        for (int round = 0; round < 6; round++) {
            Candidate leader = awaitLeader(candidates, TTL.multipliedBy(2));
            assertThat(candidates.stream().filter(c -> c.leadership.isLeader()).count()).as("leaders at once").isEqualTo(1);
            Lease term = leader.leadership.awaitLeadership(Duration.ZERO).orElseThrow();
            assertThat(term.token()).as("term %d's token", round).isGreaterThan(previousToken);
            previousToken = term.token();
            // isLeader() turns true as the term is granted, before onElected writes: resigning at once
            // could end every term before its first write, and the history would fence nothing.
            eventually(() -> leader.wroteIn(term), "term " + term.token() + "'s leader wrote");
            long left = System.nanoTime();
            if (round == 5) {
                leader.leadership.close();
            } else {
                leader.leadership.resign();
                assertThat(leader.leadership.isLeader()).isFalse();
            }
            List<Candidate> others = candidates.stream().filter(c -> c != leader).toList();
            awaitLeader(others, REPLACED_WITHIN);
            assertThat(Duration.ofNanos(System.nanoTime() - left)).as("replaced long before the ttl")
                    .isLessThan(REPLACED_WITHIN);
            if (round < 5) {
                leader.start(); // rejoins the election after resigning
            }
        }
        candidates.forEach(c -> c.leadership.close());
        Verdict verdict = HistoryChecker.check(history);
        assertThat(verdict.holds()).isGreaterThanOrEqualTo(6);
        assertThat(verdict.admittedWrites()).isGreaterThanOrEqualTo(6);
        assertThat(verdict.isValid()).as(verdict.toString()).isTrue();
    }

    @Test
    void aPartitionedLeaderLosesItsTermByItsLocalDeadlineAndAHigherTokenLeadsNext() throws Exception {
        Duration ttl = partitionTtl();
        List<FaultProxy> proxies = new ArrayList<>();
        List<InetSocketAddress> via = new ArrayList<>();
        for (InetSocketAddress server : servers()) {
            FaultProxy proxy = closing(FaultProxy.start(server.getHostString(), server.getPort()));
            proxies.add(proxy);
            via.add(new InetSocketAddress(proxy.host(), proxy.port()));
        }
        Candidate cut = candidate(closing(connectVia(via)), "cut-off", ttl);
        cut.start();
        Lease cutTerm = cut.leadership.awaitLeadership(Duration.ofSeconds(30)).orElseThrow();
        List<Candidate> others = List.of(candidate(closing(connect()), "node-1", ttl),
                candidate(closing(connect()), "node-2", ttl));
        others.forEach(Candidate::start);

        Duration left = cutTerm.remaining();
        proxies.forEach(FaultProxy::blackhole);
        cutTerm.lost().toCompletableFuture().get(left.toMillis() + 2_000, TimeUnit.MILLISECONDS);
        assertThat(cut.leadership.isLeader()).isFalse();
        assertThat(cut.revoked).succeedsWithin(Duration.ofSeconds(5));
        Candidate next = awaitLeader(others, Duration.ofSeconds(60));
        // isLeader() turns true as the term is granted; onElected, which stamps the start, may run a moment later.
        eventually(() -> next.electedNanos.get() != 0, "the next leader's onElected ran");
        Lease nextTerm = next.leadership.awaitLeadership(Duration.ZERO).orElseThrow();
        assertThat(nextTerm.token()).isGreaterThan(cutTerm.token());
        assertThat(cut.lastClaimNanos.get()).as("the cut-off leader stopped claiming before its successor began")
                .isLessThan(next.electedNanos.get());
        proxies.forEach(FaultProxy::pass);
        others.forEach(c -> c.leadership.close());
        cut.leadership.close();
        Verdict verdict = HistoryChecker.check(history);
        assertThat(verdict.isValid()).as(verdict.toString()).isTrue();
    }

    @Test
    void closingTheLeadersClientEndsItsTermAndAnotherLeadsAtOnce() throws Exception {
        LockClient leaderClient = closing(connect());
        Candidate first = candidate(leaderClient, "node-1", TTL);
        first.start();
        Lease firstTerm = first.leadership.awaitLeadership(Duration.ofSeconds(30)).orElseThrow();
        Candidate second = candidate(closing(connect()), "node-2", TTL);
        second.start();
        long closing = System.nanoTime();
        leaderClient.close();
        assertThat(first.revoked).succeedsWithin(Duration.ofSeconds(5));
        assertThat(firstTerm.isValid()).isFalse();
        Lease secondTerm = second.leadership.awaitLeadership(REPLACED_WITHIN).orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(REPLACED_WITHIN);
        assertThat(secondTerm.token()).isGreaterThan(firstTerm.token());
        second.leadership.close();
        Verdict verdict = HistoryChecker.check(history);
        assertThat(verdict.isValid()).as(verdict.toString()).isTrue();
    }

    @Test
    void aRunningCandidateCannotStartTwiceAndBadWaitsAreRefused() {
        Leadership leadership = closing(closing(connect()).leadership(election()));
        Candidate listener = new Candidate("twice", leadership, history, counter);
        leadership.start(listener);
        assertThatThrownBy(() -> leadership.start(listener)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("resign()");
        assertThatThrownBy(() -> leadership.start(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> leadership.awaitLeadership(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wait");
        leadership.close();
        assertThatThrownBy(() -> leadership.start(listener)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThat(leadership.isLeader()).isFalse();
    }

    @Test
    void workStartedWithTermCallIsInterruptedWhenTheTermEnds() throws Exception {
        Leadership leadership = closing(closing(connect()).leadership(election(),
                LeadershipOptions.defaults().withLockOptions(LockOptions.watchdog(TTL))));
        CompletableFuture<Throwable> workEnded = new CompletableFuture<>();
        CompletableFuture<Void> working = new CompletableFuture<>();
        leadership.start(new LeadershipListener() {
            @Override
            public void onElected(Lease term) {
                try {
                    term.call(() -> {
                        assertThat(Lease.current()).isSameAs(term);
                        working.complete(null);
                        Thread.sleep(60_000);
                        return null;
                    });
                    workEnded.complete(null);
                } catch (Throwable thrown) {
                    workEnded.complete(thrown);
                }
            }

            @Override
            public void onRevoked(String reason) {
            }
        });
        working.get(30, TimeUnit.SECONDS);
        long resigning = System.nanoTime();
        leadership.resign();
        Throwable thrown = workEnded.get(10, TimeUnit.SECONDS);
        assertThat(thrown).isInstanceOf(LeaseLostException.class).hasMessageContaining("resigned");
        assertThat(thrown.getSuppressed()).anyMatch(InterruptedException.class::isInstance);
        assertThat(Duration.ofNanos(System.nanoTime() - resigning)).isLessThan(REPLACED_WITHIN);
    }

    @Test
    void currentLeaderIsReadableByANonCandidateAndEmptyWhenNobodyLeads() throws Exception {
        Leadership observer = closing(closing(connect()).leadership(election()));
        if (!keepsLeaderRecords()) {
            assertThatThrownBy(observer::currentLeader).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("currentLeader");
            return;
        }
        assertThat(observer.currentLeader()).isEmpty();
        Candidate leader = candidate(closing(connect()), "node-a", TTL);
        leader.start();
        Lease term = leader.leadership.awaitLeadership(Duration.ofSeconds(30)).orElseThrow();
        // The term is granted before its leader publishes the record (currentLeader's Javadoc).
        LeaderInfo published = new LeaderInfo("node-a", term.token(), Optional.of("node-a:8080"));
        eventually(() -> observer.currentLeader().equals(Optional.of(published)), "the leader's record is read");
        leader.leadership.resign();
        // Well within the ttl: a record that only went when its lease expired would fail this.
        eventually(() -> observer.currentLeader().isEmpty(), "no record after the leader resigned",
                Duration.ofSeconds(2));

        Leadership withoutValue = closing(closing(connect()).leadership(election(),
                LeadershipOptions.defaults().withLockOptions(LockOptions.watchdog(TTL))));
        withoutValue.start(new Candidate("default", withoutValue, history, counter));
        Lease second = withoutValue.awaitLeadership(Duration.ofSeconds(30)).orElseThrow();
        eventually(() -> observer.currentLeader().isPresent(), "the second leader's record is read");
        LeaderInfo info = observer.currentLeader().orElseThrow();
        assertThat(info.token()).isEqualTo(second.token()).isGreaterThan(term.token());
        assertThat(info.value()).isEmpty();
        assertThat(info.leaderId()).isEqualTo(withoutValue.leaderId());
    }

    private static Candidate awaitLeader(List<Candidate> candidates, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        BooleanSupplier anyLeads = () -> candidates.stream().anyMatch(c -> c.leadership.isLeader());
        while (!anyLeads.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no candidate was elected within " + within);
            }
            Thread.sleep(5);
        }
        return candidates.stream().filter(c -> c.leadership.isLeader()).findFirst().orElseThrow();
    }

    /**
     * One candidate and what it saw: each term's work runs in {@code term.call}, claiming the term
     * every few milliseconds while {@code term.isValid()} and incrementing the guarded counter with
     * the term's token, and is recorded as a {@link Hold}.
     */
    private static final class Candidate implements LeadershipListener {

        final String id;
        final Leadership leadership;
        final History history;
        final CounterResource counter;
        final AtomicLong electedNanos = new AtomicLong();
        final AtomicLong lastClaimNanos = new AtomicLong();
        /** The token of the last term in which this candidate's write was admitted. */
        final AtomicLong lastWrittenToken = new AtomicLong(Long.MIN_VALUE);
        final CompletableFuture<String> revoked = new CompletableFuture<>();

        Candidate(String id, Leadership leadership, History history, CounterResource counter) {
            this.id = id;
            this.leadership = leadership;
            this.history = history;
            this.counter = counter;
        }

        void start() {
            leadership.start(this);
        }

        boolean wroteIn(Lease term) {
            return lastWrittenToken.get() == term.token();
        }

        @Override
        public void onElected(Lease term) {
            long elected = System.nanoTime();
            electedNanos.set(elected);
            long claimed = elected;
            try {
                claimed = term.call(() -> {
                    long last = elected;
                    while (true) {
                        // Read the clock first: the claim is the moment the term was still valid.
                        long now = System.nanoTime();
                        if (!term.isValid()) {
                            return last;
                        }
                        last = now;
                        lastClaimNanos.set(last);
                        try {
                            if (counter.increment(id, term.token(), counter.read(term.token()))) {
                                lastWrittenToken.set(term.token());
                            }
                        } catch (StaleTokenException deposed) {
                            return last;
                        }
                        Thread.sleep(2);
                    }
                });
            } catch (LeaseLostException | InterruptedException ended) {
                claimed = lastClaimNanos.get();
            } catch (Exception unexpected) {
                throw new IllegalStateException(unexpected);
            } finally {
                history.hold(new Hold(id, term.token(), elected, Math.max(elected, claimed)));
            }
        }

        @Override
        public void onRevoked(String reason) {
            revoked.complete(reason);
        }
    }
}
