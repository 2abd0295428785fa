package dev.leasehold.integration;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.leasehold.testkit.junit.Eventually.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Integration's own {@link LockRegistryLeaderInitiator}, unchanged, over two
 * {@link LeaseholdLockRegistry}s on two clients of one real Redis: two application instances
 * competing for one role.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaderInitiatorTest {

    private static final Duration AWAIT = Duration.ofSeconds(15);

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    private final List<LockClient> clients = new ArrayList<>();
    private final List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();
    /** Every term, in the order the candidates were granted leadership. */
    private final List<Term> terms = Collections.synchronizedList(new ArrayList<>());
    private final List<AbstractLeaderEvent> events = Collections.synchronizedList(new ArrayList<>());

    /**
     * One grant as its candidate saw it: who, its lease, whether another term's lease was valid at the
     * same time as this one (another was seen valid, and this one was still valid after), and whether
     * it was recorded in time (its own lease still valid: a candidate whose callback ran late, after
     * its lease expired and the next term began, is recorded out of order).
     */
    private record Term(String candidate, Lease lease, boolean overlapped, boolean timely) {
    }

    @AfterEach
    void stopAll() {
        initiators.forEach(LockRegistryLeaderInitiator::stop);
        clients.forEach(LockClient::close);
    }

    /** An application instance: its own client and registry, and an initiator for {@code role}. */
    private LockRegistryLeaderInitiator instance(String id, String role, LockOptions options) {
        LockClient client = RedisLocks.connect(server.get().uri());
        clients.add(client);
        LeaseholdLockRegistry registry = new LeaseholdLockRegistry(client, options);
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, new AbstractCandidate(id, role) {
            @Override
            public void onGranted(Context context) {
                // The initiator's thread holds the lock while granted: its lease, and token, are reachable.
                Lease lease = registry.currentLease(role).orElseThrow();
                synchronized (terms) {
                    boolean otherValid = terms.stream().anyMatch(term -> term.lease().isValid());
                    boolean ownValid = lease.isValid();
                    terms.add(new Term(id, lease, otherValid && ownValid, ownValid));
                }
            }

            @Override
            public void onRevoked(Context context) {
            }
        });
        initiator.setHeartBeatMillis(100);
        initiator.setBusyWaitMillis(50);
        initiator.setLeaderEventPublisher(new DefaultLeaderEventPublisher(event -> events.add((AbstractLeaderEvent) event)));
        initiators.add(initiator);
        return initiator;
    }

    @Test
    void oneOfTwoInstancesLeadsAndTheOtherTakesOverWhenItYieldsOrStops() throws Exception {
        String role = "si-leader-" + System.nanoTime();
        LockRegistryLeaderInitiator a = instance("a", role, LockOptions.defaults());
        LockRegistryLeaderInitiator b = instance("b", role, LockOptions.defaults());
        a.start();
        b.start();
        eventually(() -> isLeader(a) || isLeader(b), "a leader", AWAIT);
        LockRegistryLeaderInitiator first = isLeader(a) ? a : b;
        LockRegistryLeaderInitiator second = first == a ? b : a;
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(600);
        while (System.nanoTime() < until) {
            assertThat(isLeader(first)).as("the leader keeps leading").isTrue();
            assertThat(isLeader(second)).as("the other never leads meanwhile").isFalse();
            Thread.sleep(20);
        }

        first.getContext().yield();
        eventually(() -> isLeader(second), "the other leads after a yield", AWAIT);
        assertThat(isLeader(first)).isFalse();
        second.stop();
        eventually(() -> isLeader(first), "the first leads again after the leader stopped", AWAIT);
        first.stop();
        eventually(() -> count(OnRevokedEvent.class) == 3, "both revoked", AWAIT);

        String firstId = first == a ? "a" : "b";
        String secondId = first == a ? "b" : "a";
        assertThat(terms).extracting(Term::candidate).containsExactly(firstId, secondId, firstId);
        assertThat(terms).extracting(Term::overlapped).as("no two valid terms at once").containsOnly(false);
        assertThat(terms).extracting(term -> term.lease().token()).as("a token per term, increasing").isSorted()
                .doesNotHaveDuplicates();
        assertThat(terms).extracting(term -> term.lease().isValid()).as("every term ended").containsOnly(false);
        assertThat(count(OnGrantedEvent.class)).isEqualTo(3);
        assertThat(events).extracting(AbstractLeaderEvent::getRole).containsOnly(role);
        assertThat(server.get().command("EXISTS", role)).as("nothing left held").isEqualTo(0L);
    }

    @Test
    void aTermWhoseLeaseRanOutIsRevokedAndTheElectionGoesOnWithHigherTokens() throws Exception {
        checkTermsLimitedTo(Duration.ofMillis(400));
    }

    /** The same, ten times over, for the faults profile's soak. */
    @Tag("faults")
    @RepeatedTest(10)
    void termLimitsSoak() throws Exception {
        checkTermsLimitedTo(Duration.ofMillis(400));
    }

    private void checkTermsLimitedTo(Duration leaseTime) throws Exception {
        List<Term> seen = runTermsLimitedTo(leaseTime);
        assertThat(seen).extracting(Term::overlapped).as("no two valid terms at once").containsOnly(false);
        assertThat(seen).filteredOn(Term::timely).extracting(term -> term.lease().token())
                .as("a token per term, increasing").isSorted().doesNotHaveDuplicates();
        assertThat(seen).extracting(term -> term.lease().isValid()).as("every term ended").containsOnly(false);
    }

    /**
     * A fixed lease is a term limit: each leader loses its lease, the initiator's next heartbeat finds
     * it (re-entry refuses a lost lease), revokes, and the election runs again. Four terms or more.
     */
    private List<Term> runTermsLimitedTo(Duration leaseTime) throws Exception {
        String role = "si-term-" + System.nanoTime();
        LockOptions termLimit = LockOptions.fixedLease(leaseTime);
        LockRegistryLeaderInitiator a = instance("a", role, termLimit);
        LockRegistryLeaderInitiator b = instance("b", role, termLimit);
        a.start();
        b.start();
        eventually(() -> terms.size() >= 4, "four terms", AWAIT);
        a.stop();
        b.stop();
        eventually(() -> count(OnRevokedEvent.class) == count(OnGrantedEvent.class), "every grant revoked", AWAIT);
        assertThat(count(OnGrantedEvent.class)).isGreaterThanOrEqualTo(4);
        synchronized (terms) {
            return List.copyOf(terms);
        }
    }

    private static boolean isLeader(LockRegistryLeaderInitiator initiator) {
        return initiator.getContext().isLeader();
    }

    private long count(Class<? extends AbstractLeaderEvent> type) {
        synchronized (events) {
            return events.stream().filter(type::isInstance).count();
        }
    }
}
