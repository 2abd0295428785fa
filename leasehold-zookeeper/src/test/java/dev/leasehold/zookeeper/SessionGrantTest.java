package dev.leasehold.zookeeper;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a confirmed operation lets a later grant count from: an earlier confirmation of the same
 * session, at least a relay gap (a third of the session timeout without a known tickTime) before
 * the later send, coarsened to an eighth of the gap; otherwise only the floor.
 */
class SessionGrantTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final long GAP = TIMEOUT.toNanos() / 3;
    private static final long FLOOR = TIMEOUT.toNanos() - TIMEOUT.toNanos() / 3 - GAP;

    private final AtomicLong session = new AtomicLong(1);
    private final SessionGrant grants = new SessionGrant(() -> TIMEOUT, session::get);

    @Test
    void withoutAnEarlierConfirmationTheGrantIsTheFloor() {
        long t = System.nanoTime();
        assertThat(grants.grantedFor(t).toNanos()).isEqualTo(FLOOR);
    }

    @Test
    void aConfirmationAGapEarlierCountsFromItsBucket() {
        long confirmedAt = System.nanoTime();
        grants.confirmed(confirmedAt);
        grants.confirmed(confirmedAt + 1);
        long later = confirmedAt + GAP + 1;
        long granted = grants.grantedFor(later).toNanos();
        assertThat(granted).isLessThanOrEqualTo(confirmedAt + TIMEOUT.toNanos() - later)
                .isGreaterThan(confirmedAt - GAP / 8 + TIMEOUT.toNanos() - later);
    }

    /** Repeated confirmations in one bucket are kept once; a new session starts afresh, even in the same bucket. */
    @Test
    void aConfirmationCountsOnlyInItsOwnSessionAlsoInABucketAnEarlierSessionUsed() {
        long confirmedAt = System.nanoTime();
        grants.confirmed(confirmedAt);
        session.set(2);
        long later = confirmedAt + GAP + 1;
        assertThat(grants.grantedFor(later).toNanos()).as("the earlier session's confirmation").isEqualTo(FLOOR);
        grants.confirmed(confirmedAt + 1);
        assertThat(grants.grantedFor(later).toNanos()).as("this session's, in the same bucket").isGreaterThan(FLOOR);
    }
}
