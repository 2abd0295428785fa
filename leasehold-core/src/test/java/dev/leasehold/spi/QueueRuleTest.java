package dev.leasehold.spi;

import dev.leasehold.LockKind;
import dev.leasehold.PermitsMismatchException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.leasehold.spi.QueueEntry.exclusive;
import static dev.leasehold.spi.QueueEntry.permit;
import static dev.leasehold.spi.QueueEntry.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QueueRuleTest {

    @Test
    void anExclusiveEntryHoldsAtTheHeadAndWatchesTheLockEntryJustAhead() {
        List<QueueEntry> queue = List.of(exclusive(), read(), exclusive());
        assertThat(decide(queue, 0).granted()).isTrue();
        assertThat(decide(queue, 2)).isEqualTo(new QueueRule.Decision(false, 1));
    }

    @Test
    void readersShareUntilAnExclusiveEntryAndReadersBehindAWaitingWriterWait() {
        List<QueueEntry> queue = List.of(read(), read(), exclusive(), read());
        assertThat(decide(queue, 1).granted()).isTrue();
        assertThat(decide(queue, 2)).isEqualTo(new QueueRule.Decision(false, 1));
        assertThat(decide(queue, 3)).as("no writer starvation").isEqualTo(new QueueRule.Decision(false, 2));
    }

    @Test
    void theGrantedEntriesAreTheHeadOfTheQueueAndAMismatchedPermitEndsIt() {
        assertThat(QueueRule.grantedPrefix("x", List.of())).isZero();
        assertThat(QueueRule.grantedPrefix("x", List.of(read(), read(), exclusive(), read()))).isEqualTo(2);
        assertThat(QueueRule.grantedPrefix("x", List.of(permit(2), exclusive(), permit(2), permit(2)))).isEqualTo(3);
        assertThat(QueueRule.grantedPrefix("x", List.of(permit(2), permit(3), exclusive()))).isEqualTo(1);
    }

    @Test
    void everyKindHasItsEntryAndItsAdmission() {
        assertThat(List.of(LockKind.MUTEX, LockKind.FAIR, LockKind.WRITE)).allSatisfy(kind ->
                assertThat(QueueEntry.of(kind)).isEqualTo(exclusive()));
        assertThat(QueueEntry.of(LockKind.READ)).isEqualTo(read());
        assertThat(QueueEntry.of(LockKind.permits(4))).isEqualTo(permit(4));
        assertThat(permit(4).reportedKind()).isEqualTo(LockKind.permits(4));
        assertThat(read().reportedKind()).isEqualTo(LockKind.READ);
        assertThat(exclusive().reportedKind()).as("a queue does not tell the exclusive kinds apart").isEqualTo(LockKind.MUTEX);
        assertThat(QueueRule.admission(LockKind.MUTEX)).isEqualTo(Admission.EXCLUSIVE);
        assertThat(QueueRule.admission(LockKind.WRITE)).isEqualTo(Admission.EXCLUSIVE);
        assertThat(List.of(LockKind.FAIR, LockKind.READ, LockKind.permits(1))).allSatisfy(kind ->
                assertThat(QueueRule.admission(kind)).isEqualTo(Admission.SHARED));
    }

    @Test
    void permitsShareUpToTheirNumber() {
        List<QueueEntry> queue = List.of(permit(2), permit(2), permit(2));
        assertThat(decide(queue, 1).granted()).isTrue();
        assertThat(decide(queue, 2).watchesWholeQueue()).isTrue();
        List<QueueEntry> single = List.of(permit(1), permit(1), permit(1));
        assertThat(decide(single, 2)).isEqualTo(new QueueRule.Decision(false, 1));
    }

    @Test
    void theLockFamilyAndTheSemaphoreFamilyHoldTogether() {
        List<QueueEntry> queue = List.of(permit(1), exclusive(), read(), permit(1));
        assertThat(decide(queue, 1).granted()).as("a mutex beside a held permit").isTrue();
        assertThat(decide(List.of(exclusive(), permit(3)), 1).granted()).as("a permit beside a mutex").isTrue();
    }

    /** The defect this rule fixes: a permit queued before a mutex was granted after it, with a lower token. */
    @Test
    void anEntryWaitsForEveryEarlierEntryOfAnyKindSoTokensFollowGrants() {
        // p0 holds the only permit, p1 waits for it, then a mutex arrives.
        List<QueueEntry> queue = List.of(permit(1), permit(1), exclusive());
        assertThat(decide(queue, 1).granted()).isFalse();
        QueueRule.Decision mutex = decide(queue, 2);
        assertThat(mutex.granted()).as("the mutex waits until the earlier permit is granted").isFalse();
        assertThat(mutex.watchesWholeQueue()).as("nothing of its own family blocks it").isTrue();
        assertThat(decide(List.of(permit(1), exclusive()), 1).granted()).as("granted right after it").isTrue();
    }

    @Test
    void aPermitAskedUnderAnotherNumberThanOneAheadIsAMismatch() {
        List<QueueEntry> queue = List.of(exclusive(), permit(2), permit(3));
        assertThatThrownBy(() -> decide(queue, 2)).isInstanceOf(PermitsMismatchException.class)
                .hasMessageContaining("held with 2 permits").hasMessageContaining("asks for 3");
        assertThat(decide(queue, 1).granted()).as("the earlier permit is not refused").isTrue();
    }

    @Test
    void entriesAreValidated() {
        assertThatThrownBy(() -> new QueueEntry(QueueEntry.Mode.PERMIT, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new QueueEntry(QueueEntry.Mode.READ, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new QueueEntry(null, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Over many random queues: the granted entries form a prefix, no two conflicting entries hold,
     * and a blocked entry is never granted by the deletion of an entry it does not watch (no
     * missed wake-up); deleting entries never takes a grant back.
     */
    @Test
    void randomQueuesKeepPrefixGrantsExclusionAndWakeTheWatcher() {
        Random random = new Random(19);
        for (int round = 0; round < 20_000; round++) {
            int permits = 1 + random.nextInt(2);
            List<QueueEntry> queue = randomQueue(random, permits);
            List<Boolean> granted = new ArrayList<>();
            for (int i = 0; i < queue.size(); i++) {
                granted.add(decide(queue, i).granted());
            }
            int firstBlocked = granted.indexOf(false);
            if (firstBlocked >= 0) {
                assertThat(granted.subList(firstBlocked, granted.size())).as("prefix in %s", queue).containsOnly(false);
            }
            assertExclusion(queue, granted, permits);
            for (int mine = 0; mine < queue.size(); mine++) {
                QueueRule.Decision decision = decide(queue, mine);
                for (int gone = 0; gone < mine; gone++) {
                    List<QueueEntry> after = new ArrayList<>(queue);
                    after.remove(gone);
                    boolean nowGranted = decide(after, mine - 1).granted();
                    if (decision.granted()) {
                        assertThat(nowGranted).as("a grant is never taken back in %s", queue).isTrue();
                    } else if (nowGranted && !decision.watchesWholeQueue()) {
                        assertThat(gone).as("entry %d of %s is granted by deleting %d", mine, queue, gone)
                                .isEqualTo(decision.watch());
                    }
                }
            }
        }
    }

    private static void assertExclusion(List<QueueEntry> queue, List<Boolean> granted, int permitsAllowed) {
        int exclusive = 0;
        int readers = 0;
        int permits = 0;
        for (int i = 0; i < queue.size(); i++) {
            if (!granted.get(i)) {
                continue;
            }
            switch (queue.get(i).mode()) {
                case EXCLUSIVE -> exclusive++;
                case READ -> readers++;
                case PERMIT -> permits++;
            }
        }
        assertThat(exclusive).as("exclusive holders in %s", queue).isLessThanOrEqualTo(1);
        if (exclusive == 1) {
            assertThat(readers).as("readers beside the exclusive holder in %s", queue).isZero();
        }
        assertThat(permits).as("permits held in %s", queue).isLessThanOrEqualTo(permitsAllowed);
    }

    /** Up to eight entries; every permit of a queue asks for the same number, so no mismatch occurs. */
    private static List<QueueEntry> randomQueue(Random random, int permits) {
        List<QueueEntry> queue = new ArrayList<>();
        int size = 1 + random.nextInt(8);
        for (int i = 0; i < size; i++) {
            queue.add(switch (random.nextInt(3)) {
                case 0 -> exclusive();
                case 1 -> read();
                default -> permit(permits);
            });
        }
        return queue;
    }

    private static QueueRule.Decision decide(List<QueueEntry> queue, int mine) {
        return QueueRule.decide("orders", queue, mine);
    }
}
