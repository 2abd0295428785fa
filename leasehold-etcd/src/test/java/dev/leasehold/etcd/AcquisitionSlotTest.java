package dev.leasehold.etcd;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ordering {@link Acquisitions} relies on so that an attempt racing an abandon cannot create a key
 * after the abandon deleted it: the abandon waits for every attempt admitted before it, and no attempt
 * is admitted after it (until a failed abandon reopens the acquisition for its retry).
 */
class AcquisitionSlotTest {

    private final AcquisitionSlot slot = new AcquisitionSlot(new CompletableFuture<>());

    @Test
    void anAttemptLookedUpBeforeTheAbandonButRegisteredAfterItIsRefused() {
        CompletableFuture<Void> ended = slot.end();

        assertThat(slot.admit(new CompletableFuture<>())).as("admitted after the abandon").isFalse();
        assertThat(ended).as("nothing admitted before it to wait for").isDone();
    }

    @Test
    void theAbandonWaitsForTheAttemptAdmittedBeforeIt() {
        CompletableFuture<String> attempt = new CompletableFuture<>();
        assertThat(slot.admit(attempt)).isTrue();

        CompletableFuture<Void> ended = slot.end();
        assertThat(ended).as("while the attempt's Txn may still create the key").isNotDone();

        attempt.completeExceptionally(new IllegalStateException("the Txn failed"));
        assertThat(ended).as("settled, whatever the attempt's outcome").isCompleted();
    }

    @Test
    void aFailedAbandonReopensTheAcquisitionForItsRetry() {
        slot.end();
        slot.reopen();

        CompletableFuture<String> attempt = new CompletableFuture<>();
        assertThat(slot.admit(attempt)).isTrue();
        assertThat(slot.end()).isNotDone();
    }
}
