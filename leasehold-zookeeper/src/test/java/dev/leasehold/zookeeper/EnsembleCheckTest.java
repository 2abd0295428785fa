package dev.leasehold.zookeeper;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Reading the ensemble's tickTime and syncLimit from {@code conf}, and what a refusal looks like. */
class EnsembleCheckTest {

    @Test
    void aConfAnswerGivesTheTickTimeAndTheSyncLimit() {
        String conf = "clientPort=2181\ndataDir=/tmp/zk\ntickTime=200\nmaxClientCnxns=60\nminSessionTimeout=400\n"
                + "maxSessionTimeout=60000\nserverId=1\ninitLimit=10\nsyncLimit=25\nelectionAlg=3\n";
        assertThat(EnsembleCheck.parse(conf)).contains(new EnsembleCheck.Settings(Duration.ofMillis(200), 25));
    }

    @Test
    void aStandaloneServerHasNoSyncLimitAndAServerThatRefusesConfSaysNothing() {
        assertThat(EnsembleCheck.parse("clientPort=2181\ntickTime=2000\n"))
                .contains(new EnsembleCheck.Settings(Duration.ofSeconds(2), 0));
        assertThat(EnsembleCheck.parse("conf is not executed because it is not in the whitelist.\n")).isEmpty();
        assertThat(EnsembleCheck.read("127.0.0.1:1")).as("nobody listens on port 1").isEqualTo(Optional.empty());
    }

    @Test
    void theTickTimeShortensTheRelayGapSoTheGrantGrows() {
        Duration session = Duration.ofSeconds(3);
        SessionGrant unknown = new SessionGrant(() -> session, () -> 1);
        SessionGrant known = new SessionGrant(() -> session, () -> 1);
        known.tickTime(Duration.ofMillis(200));
        long now = System.nanoTime();
        // Without it: T - T/3 - T/3; with it: T - T/3 - tick.
        assertThat(unknown.grantedFor(now)).isEqualTo(Duration.ofSeconds(1));
        assertThat(known.grantedFor(now)).isEqualTo(Duration.ofMillis(1_800));
        // A renewal confirmed at least a gap earlier is a later anchor than the floor.
        known.confirmed(now - Duration.ofMillis(250).toNanos());
        assertThat(known.grantedFor(now)).isGreaterThan(Duration.ofMillis(2_700)).isLessThanOrEqualTo(Duration.ofMillis(2_750));
        // One confirmed less than a gap before tells nothing more.
        SessionGrant recent = new SessionGrant(() -> session, () -> 1);
        recent.tickTime(Duration.ofMillis(200));
        recent.confirmed(now - Duration.ofMillis(100).toNanos());
        assertThat(recent.grantedFor(now)).isEqualTo(Duration.ofMillis(1_800));
        // Anchors of another session are never used.
        SessionGrant moved = new SessionGrant(() -> session, new java.util.concurrent.atomic.AtomicLong(1)::getAndIncrement);
        moved.confirmed(now - Duration.ofMillis(1_000).toNanos());
        assertThat(moved.grantedFor(now)).isEqualTo(Duration.ofSeconds(1));
    }
}
