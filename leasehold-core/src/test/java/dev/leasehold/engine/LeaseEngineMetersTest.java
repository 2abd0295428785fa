package dev.leasehold.engine;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.micrometer.MicrometerLeaseEvents;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static dev.leasehold.engine.LeaseEngineTest.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Each meter of {@link MicrometerLeaseEvents}, fed by the engine over {@link InMemoryLockProtocol}:
 * it moves for its event and stays still for the others.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LeaseEngineMetersTest {

    private static final Duration LONG_TTL = Duration.ofSeconds(30);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final InMemoryLockProtocol protocol = new InMemoryLockProtocol();
    private final LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1), Duration.ofMillis(50))
            .withEvents(MicrometerLeaseEvents.of(registry)), "in-memory");

    @AfterEach
    void close() {
        engine.close();
    }

    private DistributedLock lock(String name, LockOptions options) {
        return engine.lock(name, options, protocol);
    }

    @Test
    void acquireWaitTimesEachOutcomeUnderItsOwnTags() {
        lock("a", LockOptions.watchdog(LONG_TTL)).acquire(Duration.ofSeconds(1)).release();
        assertThat(acquireCount("acquired")).isEqualTo(1);
        assertThat(acquireCount("timeout")).isZero();
        assertThat(acquireCount("unavailable")).isZero();

        protocol.grantTo("b", "someone-else", LONG_TTL);
        assertThatThrownBy(() -> lock("b", LockOptions.watchdog(LONG_TTL)).acquire(Duration.ofMillis(150)))
                .isInstanceOf(LockTimeoutException.class);
        assertThat(acquireCount("timeout")).isEqualTo(1);
        Timer timedOut = registry.find(MicrometerLeaseEvents.ACQUIRE_WAIT).tag("outcome", "timeout").timer();
        assertThat(timedOut.totalTime(TimeUnit.MILLISECONDS)).as("it waited its wait").isGreaterThanOrEqualTo(150);

        protocol.loseAcquireReplies(1);
        assertThatThrownBy(() -> lock("c", LockOptions.watchdog(LONG_TTL)).acquire(Duration.ofSeconds(1)))
                .isInstanceOf(LockUnavailableException.class);
        assertThat(acquireCount("unavailable")).isEqualTo(1);
        assertThat(acquireCount("acquired")).isEqualTo(1);
        assertThat(acquireCount("timeout")).isEqualTo(1);
        assertThat(registry.find(MicrometerLeaseEvents.ACQUIRE_WAIT).timers())
                .allSatisfy(timer -> assertThat(timer.getId().getTag("kind")).isEqualTo("lock"));
    }

    /** A try whose wait elapsed is the caller's choice to go without the lock, not a failure: one {@code skipped}. */
    @Test
    void aTryWhoseWaitElapsedCountsAsSkippedNotAsTimeout() throws Exception {
        protocol.grantTo("busy", "someone-else", LONG_TTL);
        DistributedLock busy = lock("busy", LockOptions.watchdog(LONG_TTL));
        assertThat(busy.tryAcquire(Duration.ofMillis(100))).isEmpty();
        assertThat(busy.tryCall(Duration.ZERO, () -> "ran", () -> "skipped")).isEqualTo("skipped");
        assertThat(acquireCount("skipped")).isEqualTo(2);
        assertThat(acquireCount("timeout")).as("not also counted as a timeout").isZero();
        Timer skipped = registry.find(MicrometerLeaseEvents.ACQUIRE_WAIT).tag("outcome", "skipped").timer();
        assertThat(skipped.totalTime(TimeUnit.MILLISECONDS)).as("it waited its wait").isGreaterThanOrEqualTo(100);

        assertThat(lock("free", LockOptions.watchdog(LONG_TTL)).tryCall(Duration.ZERO, () -> "ran", () -> "skipped"))
                .isEqualTo("ran");
        assertThat(acquireCount("acquired")).isEqualTo(1);
        assertThatThrownBy(() -> busy.acquire(Duration.ZERO)).isInstanceOf(LockTimeoutException.class);
        assertThat(acquireCount("timeout")).as("acquire still counts its timeout").isEqualTo(1);
        assertThat(acquireCount("skipped")).isEqualTo(2);
    }

    @Test
    void noMeterCarriesTheLockName() {
        String name = "order:4711";
        try (Lease lease = lock(name, LockOptions.fixedLease(Duration.ofMillis(50))).acquire(Duration.ofSeconds(1))) {
            eventually(() -> !lease.isValid(), "the fixed lease ran out");
        }
        List<String> tagValues = registry.getMeters().stream()
                .flatMap(meter -> meter.getId().getTags().stream())
                .map(tag -> tag.getValue()).toList();
        assertThat(tagValues).isNotEmpty().noneMatch(value -> value.contains("4711"));
        assertThat(registry.getMeters()).extracting(meter -> meter.getId().getName())
                .allMatch(meterName -> meterName.startsWith("leasehold."));
    }

    @Test
    void leaseHeldTimesEachLeaseFromGrantToRelease() throws InterruptedException {
        Lease lease = lock("held", LockOptions.watchdog(LONG_TTL)).acquire(Duration.ofSeconds(1));
        Thread.sleep(100);
        assertThat(held().count()).as("still held: nothing recorded yet").isZero();
        lease.release();
        assertThat(held().count()).isEqualTo(1);
        assertThat(held().totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(100);
        lease.release();
        assertThat(held().count()).as("a second release is no second lease").isEqualTo(1);
    }

    @Test
    void leasesActiveFollowsTheLeasesHeldRightNow() {
        assertThat(active()).isZero();
        Lease first = lock("one", LockOptions.watchdog(LONG_TTL)).acquire(Duration.ofSeconds(1));
        Lease second = lock("two", LockOptions.fixedLease(Duration.ofMillis(100))).acquire(Duration.ofSeconds(1));
        assertThat(active()).isEqualTo(2);
        first.release();
        assertThat(active()).isEqualTo(1);
        eventually(() -> active() == 0, "the lost fixed lease no longer counts");
        second.release();
        assertThat(active()).as("releasing the lost lease changes nothing").isZero();
    }

    @Test
    void renewalFailuresCountRenewalsWithoutAnAnswerOnly() throws InterruptedException {
        Lease healthy = lock("healthy", LockOptions.watchdog(Duration.ofMillis(150))).acquire(Duration.ofSeconds(1));
        Thread.sleep(400);
        assertThat(healthy.isValid()).isTrue();
        assertThat(renewalFailures()).as("successful renewals are no failures").isZero();
        healthy.release();

        Lease failing = lock("failing", LockOptions.watchdog(Duration.ofMillis(300))).acquire(Duration.ofSeconds(1));
        protocol.failRenewals(true);
        eventually(() -> !failing.isValid(), "renewals failed until the deadline");
        assertThat(renewalFailures()).isGreaterThanOrEqualTo(1);
        assertThat(lost()).containsEntry("expired", 1.0);
        protocol.failRenewals(false);
    }

    @Test
    void leaseLostCountsEachLossUnderItsReason() {
        Lease expired = lock("expired", LockOptions.fixedLease(Duration.ofMillis(50))).acquire(Duration.ofSeconds(1));
        eventually(() -> !expired.isValid(), "the fixed lease ran out");
        assertThat(lost()).containsEntry("expired", 1.0).containsEntry("refused", 0.0);

        Lease taken = lock("taken", LockOptions.watchdog(Duration.ofMillis(150))).acquire(Duration.ofSeconds(1));
        protocol.expire("taken");
        protocol.grantTo("taken", "someone-else", LONG_TTL);
        eventually(() -> !taken.isValid(), "the renewal found another holder");
        assertThat(lost()).containsEntry("refused", 1.0).containsEntry("expired", 1.0);

        // One renewal must succeed for the lease to outlive maxHold: a whole second for it under load.
        Lease capped = lock("capped", LockOptions.watchdog(Duration.ofSeconds(1)).withMaxHold(Duration.ofSeconds(1)))
                .acquire(Duration.ofSeconds(1));
        eventually(() -> !capped.isValid(), "maxHold ended the renewals");
        // The loss is counted by the thread that ends the lease, which may run just after isValid() turned false.
        eventually(() -> lost().get("max_hold") == 1.0, "the maxHold loss counted");
        assertThat(lost()).containsEntry("max_hold", 1.0);

        Lease kept = lock("kept", LockOptions.watchdog(LONG_TTL)).acquire(Duration.ofSeconds(1));
        kept.release();
        assertThat(lost()).as("a release is no loss").containsEntry("expired", 1.0).containsEntry("refused", 1.0)
                .containsEntry("max_hold", 1.0).containsEntry("client_closed", 0.0).containsEntry("backend", 0.0);

        lock("open", LockOptions.watchdog(LONG_TTL)).acquire(Duration.ofSeconds(1));
        engine.close();
        assertThat(lost()).containsEntry("client_closed", 1.0);
    }

    @Test
    void overrunCountsAHolderThatReleasesALostLeaseOnce() {
        Lease lease = lock("late", LockOptions.fixedLease(Duration.ofMillis(50))).acquire(Duration.ofSeconds(1));
        eventually(() -> !lease.isValid(), "the fixed lease ran out");
        assertThat(overrun()).as("losing a lease is not yet an overrun").isZero();
        assertThat(lease.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        assertThat(overrun()).isEqualTo(1);
        lease.release();
        assertThatThrownBy(lease::ensureValid).isInstanceOf(LeaseLostException.class);
        assertThat(overrun()).as("once per lease").isEqualTo(1);
    }

    @Test
    void overrunCountsAHolderThatChecksALostLease() {
        // Long enough that a loaded machine still checks it valid first; eventually() waits out the rest.
        Lease lease = lock("checked", LockOptions.fixedLease(Duration.ofMillis(1_000))).acquire(Duration.ofSeconds(1));
        lease.ensureValid();
        assertThat(overrun()).as("a valid lease checked").isZero();
        eventually(() -> !lease.isValid(), "the fixed lease ran out");
        assertThatThrownBy(lease::ensureValid).isInstanceOf(LeaseLostException.class);
        assertThat(overrun()).isEqualTo(1);
    }

    @Test
    void overrunCountsWorkStillRunningWhenItsLeaseEnded() {
        DistributedLock lock = lock("work", LockOptions.fixedLease(Duration.ofMillis(100)));
        assertThatThrownBy(() -> lock.run(Duration.ofSeconds(1), () -> {
            try {
                Thread.sleep(5_000);
            } catch (InterruptedException stoppedByTheLoss) {
                Thread.currentThread().interrupt();
            }
        })).isInstanceOf(LeaseLostException.class);
        assertThat(overrun()).isEqualTo(1);

        lock.run(Duration.ofSeconds(1), () -> { });
        assertThat(overrun()).as("work that ended in time").isEqualTo(1);
    }

    @Test
    void overrunStaysStillForReleasesInTimeAndForAClosedClient() {
        Lease inTime = lock("in-time", LockOptions.watchdog(LONG_TTL)).acquire(Duration.ofSeconds(1));
        inTime.release();
        assertThatThrownBy(inTime::ensureValid).as("a released lease is no lost one").isInstanceOf(LeaseLostException.class);

        Lease open = lock("open", LockOptions.watchdog(LONG_TTL)).acquire(Duration.ofSeconds(1));
        engine.close();
        assertThat(open.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        assertThatThrownBy(open::ensureValid).isInstanceOf(LeaseLostException.class);
        assertThat(overrun()).isZero();
    }

    @Test
    void clientsSharingARegistryShareOneGauge() {
        try (LeaseEngine other = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1), Duration.ofMillis(50))
                .withEvents(MicrometerLeaseEvents.of(registry)), "in-memory")) {
            Lease mine = lock("mine", LockOptions.watchdog(LONG_TTL)).acquire(Duration.ofSeconds(1));
            Lease theirs = other.lock("theirs", LockOptions.watchdog(LONG_TTL), protocol).acquire(Duration.ofSeconds(1));
            assertThat(active()).isEqualTo(2);
            assertThat(registry.find(MicrometerLeaseEvents.LEASES_ACTIVE).gauges()).hasSize(1);
            mine.release();
            theirs.release();
            assertThat(active()).isZero();
        }
    }

    private long acquireCount(String outcome) {
        Timer timer = registry.find(MicrometerLeaseEvents.ACQUIRE_WAIT).tags("kind", "lock", "outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }

    private Timer held() {
        return registry.get(MicrometerLeaseEvents.LEASE_HELD).timer();
    }

    private double active() {
        return registry.get(MicrometerLeaseEvents.LEASES_ACTIVE).gauge().value();
    }

    private double renewalFailures() {
        return registry.get(MicrometerLeaseEvents.RENEWAL_FAILURES).counter().count();
    }

    private double overrun() {
        return registry.get(MicrometerLeaseEvents.LEASE_OVERRUN).counter().count();
    }

    private Map<String, Double> lost() {
        return registry.get(MicrometerLeaseEvents.LEASE_LOST).counters().stream()
                .collect(Collectors.toMap(counter -> counter.getId().getTag("reason"), counter -> counter.count()));
    }
}
