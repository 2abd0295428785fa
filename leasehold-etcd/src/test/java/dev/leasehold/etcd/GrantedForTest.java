package dev.leasehold.etcd;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link Acquisitions#grantedFor(CompletableFuture, long)} tells the engine of a key that is
 * being placed again, or could not be (its lease was found gone, and the key with it): nothing is
 * granted, neither a claim that the ttl bounds it ({@code null}) nor an exception thrown into the
 * engine's grant.
 */
class GrantedForTest {

    @Test
    void aKeyBeingPlacedAgainHasNothingGranted() {
        assertThat(Acquisitions.grantedFor(new CompletableFuture<>(), System.nanoTime())).isEqualTo(Duration.ZERO);
    }

    @Test
    void aKeyThatCouldNotBePlacedAgainHasNothingGranted() {
        CompletableFuture<Acquisitions.Acquisition> failed = CompletableFuture.failedFuture(
                new IllegalStateException("the session's grant failed"));
        assertThat(Acquisitions.grantedFor(failed, System.nanoTime())).isEqualTo(Duration.ZERO);
    }
}
