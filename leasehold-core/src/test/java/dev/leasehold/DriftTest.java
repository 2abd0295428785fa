package dev.leasehold;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link LockOptions#drift(Duration)} and {@link LockOptions#renewalPeriod()} divide nanoseconds
 * instead of calling {@link Duration#dividedBy(long)} (BigDecimal), since every lease and every
 * renewal answer takes them: they must give exactly what {@code ttl.dividedBy(100).plusMillis(2)}
 * and {@code ttl.dividedBy(3)} give, rounding included.
 */
class DriftTest {

    @Test
    void driftIsAHundredthOfTheTtlPlusTwoMillisecondsRoundedAsDurationDivides() {
        List<Duration> ttls = List.of(Duration.ZERO, Duration.ofNanos(1), Duration.ofNanos(199), Duration.ofMillis(1),
                Duration.ofMillis(333), Duration.ofSeconds(3), Duration.ofSeconds(30, 123_456_789),
                Duration.ofDays(365), Duration.ofSeconds(Long.MAX_VALUE / 1_000_000_000L - 1, 999_999_999),
                Duration.ofSeconds(Long.MAX_VALUE / 1_000_000_000L, 1), Duration.ofSeconds(Long.MAX_VALUE / 2));
        for (Duration ttl : ttls) {
            assertEquals(ttl.dividedBy(100).plusMillis(2), LockOptions.drift(ttl), ttl.toString());
        }
    }

    @Test
    void renewalPeriodIsAThirdOfTheTtlRoundedAsDurationDivides() {
        List<Duration> ttls = List.of(LockOptions.MIN_TTL, Duration.ofMillis(100).plusNanos(1), Duration.ofMillis(333),
                Duration.ofSeconds(10), Duration.ofSeconds(30, 123_456_789), LockOptions.MAX_TTL);
        for (Duration ttl : ttls) {
            assertEquals(ttl.dividedBy(3), LockOptions.watchdog(ttl).renewalPeriod(), ttl.toString());
        }
    }
}
