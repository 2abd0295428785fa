package dev.leasehold.zookeeper;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** What a grant on a listing alone may count from: the session's latest confirmation, while it is recent. */
class SessionGrantTest {

    private static final long T = Duration.ofSeconds(3).toNanos();
    private final AtomicLong session = new AtomicLong(7);
    private final SessionGrant grants = new SessionGrant(() -> Duration.ofNanos(T), session::get);

    @Test
    void nothingConfirmedInThisSessionIsNothingToCountFrom() {
        long now = System.nanoTime();
        assertThat(grants.recentConfirmation(now)).isEmpty();
        grants.confirmed(now);
        session.set(8);
        assertThat(grants.recentConfirmation(now + 1)).as("a confirmation of the previous session").isEmpty();
    }

    @Test
    void aConfirmationCountsWhileLessThanAThirdOfItsGrantHasPassed() {
        long sent = System.nanoTime();
        grants.confirmed(sent);
        long c = grants.recentConfirmation(sent).orElseThrow();
        assertThat(c).as("coarsened down, never later than the send").isLessThanOrEqualTo(sent);
        long granted = grants.grantedFor(c).toNanos();
        assertThat(granted).isPositive();
        assertThat(grants.recentConfirmation(c + granted / 3 - 1)).hasValue(c);
        assertThat(grants.recentConfirmation(c + granted / 3)).as("a third of its grant passed").isEmpty();
        assertThat(grants.recentConfirmation(c - 1)).as("sent before the confirmation").isEmpty();
    }
}
