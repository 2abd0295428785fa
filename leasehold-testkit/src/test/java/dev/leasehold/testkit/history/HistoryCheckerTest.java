package dev.leasehold.testkit.history;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Each property of the checker fails on a history built to break it, and only that one. */
class HistoryCheckerTest {

    @Test
    void aCleanHistoryPasses() {
        History history = new History();
        history.hold(new Hold("a", 1, 0, 10));
        history.hold(new Hold("b", 2, 10, 20));
        history.write(new Write("a", 1, true, 0, 1));
        history.write(new Write("b", 2, false, 0, 0));
        history.write(new Write("b", 2, true, 1, 2));
        Verdict verdict = HistoryChecker.check(history);
        assertThat(verdict.isValid()).as(verdict.toString()).isTrue();
        assertThat(verdict.admittedWrites()).isEqualTo(2);
        assertThat(verdict.refusedWrites()).isEqualTo(1);
    }

    @Test
    void overlappingClaimsAreCaught() {
        History history = new History();
        history.hold(new Hold("a", 1, 0, 15));
        history.hold(new Hold("b", 2, 10, 20));
        history.hold(new Hold("c", 3, 20, 30));
        Verdict verdict = HistoryChecker.check(history);
        assertThat(verdict.overlaps()).isEqualTo(1);
        assertThat(verdict.overlapExamples().get(0)).contains("a (token 1)").contains("b (token 2)");
        assertThat(verdict.tokenInversions()).isZero();
        assertThat(verdict.isValid()).isFalse();
    }

    /**
     * b's grant window (sent at 8, returned at 12) reaches into a's claim (until 10): no claimed
     * sections overlap, but the grant may have happened while a still claimed the lock.
     */
    @Test
    void aGrantInsideTheGrantWindowIsReportedButNotAnOverlap() {
        History history = new History();
        history.hold(new Hold("a", 1, 0, 1, 10));
        history.hold(new Hold("b", 2, 8, 12, 20));
        history.hold(new Hold("c", 3, 20, 21, 30));
        Verdict verdict = HistoryChecker.check(history);
        assertThat(verdict.overlaps()).isZero();
        assertThat(verdict.grantsInsideClaims()).isEqualTo(1);
        assertThat(verdict.grantExamples().get(0)).contains("b (token 2)").contains("a (token 1)").contains("0 µs");
        assertThat(verdict.isValid()).as(verdict.toString()).isTrue();
    }

    @Test
    void tokensGoingBackwardsAreCaught() {
        History history = new History();
        history.hold(new Hold("a", 5, 0, 10));
        history.hold(new Hold("b", 5, 10, 20));
        history.hold(new Hold("c", 4, 20, 30));
        Verdict verdict = HistoryChecker.check(history);
        assertThat(verdict.tokenInversions()).isEqualTo(2);
        assertThat(verdict.overlaps()).isZero();
    }

    @Test
    void aStaleWriteAdmittedIsCaught() {
        History history = new History();
        history.write(new Write("b", 7, true, 0, 1));
        history.write(new Write("a", 6, true, 1, 2));
        Verdict verdict = HistoryChecker.check(history);
        assertThat(verdict.staleWritesAdmitted()).isEqualTo(1);
        assertThat(verdict.lostUpdates()).isZero();
    }

    @Test
    void aLostUpdateIsCaughtEvenWithIncreasingTokens() {
        History history = new History();
        history.write(new Write("a", 1, true, 0, 1));
        history.write(new Write("b", 2, true, 0, 1));
        Verdict verdict = HistoryChecker.check(history);
        assertThat(verdict.lostUpdates()).isEqualTo(1);
        assertThat(verdict.staleWritesAdmitted()).isZero();
        assertThat(verdict.lostUpdateExamples().get(0)).contains("1 update(s) overwritten");
    }

    @Test
    void anUnguardedResourceAdmitsALateWriteAndAGuardedOneRefusesIt() {
        History unguardedHistory = new History();
        CounterResource unguarded = new CounterResource(unguardedHistory, false);
        long lateRead = unguarded.read(1);
        long freshRead = unguarded.read(2);
        assertThat(unguarded.increment("b", 2, freshRead)).isTrue();
        assertThat(unguarded.increment("a", 1, lateRead)).isTrue();
        Verdict broken = HistoryChecker.check(unguardedHistory);
        assertThat(broken.staleWritesAdmitted()).isEqualTo(1);
        assertThat(broken.lostUpdates()).isEqualTo(1);

        History guardedHistory = new History();
        CounterResource guarded = new CounterResource(guardedHistory, true);
        long aRead = guarded.read(1);
        long bRead = guarded.read(2);
        assertThat(guarded.increment("a", 1, aRead)).as("refused: token 2 already read").isFalse();
        assertThat(guarded.increment("b", 2, bRead)).isTrue();
        Verdict safe = HistoryChecker.check(guardedHistory);
        assertThat(safe.isValid()).as(safe.toString()).isTrue();
        assertThat(guarded.value()).isEqualTo(1);
    }
}
