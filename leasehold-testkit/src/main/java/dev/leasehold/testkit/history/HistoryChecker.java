package dev.leasehold.testkit.history;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Checks a {@link History} against what a fenced lock promises:
 * <ol>
 *   <li><b>Mutual exclusion</b>: no two holders' claimed intervals overlap. A holder's claim ends
 *   at the last moment it confirmed its lease, so a holder that was paused past its lease and
 *   noticed is not counted; one that went on believing it held the lock is. A claim starts when
 *   the acquire returned: no holder code runs before that.</li>
 *   <li><b>Grants inside a claim</b> (reported, not a violation): the grant itself happened
 *   somewhere between the send of the granting attempt and the return, so a grant may also fall
 *   inside the previous holder's claim without either claim overlapping. These are counted and
 *   shown, not failed on, because a correct lock produces them too: an attempt sent while the
 *   previous holder still held the lock, in flight across its release, is granted after the
 *   release. Only the server knows the exact grant time.</li>
 *   <li><b>Token order</b>: ordered by acquisition time, tokens strictly increase.</li>
 *   <li><b>No stale write admitted</b>: in admission order, admitted tokens never decrease.</li>
 *   <li><b>No lost update</b>: each admitted read-modify-write starts from the value the previous
 *   admitted write left (the resource is a counter incremented under the lock).</li>
 * </ol>
 * The checker is only trusted because its tests feed it the histories of deliberately broken
 * locks and guards and see each property fail.
 */
public final class HistoryChecker {

    private static final int EXAMPLES = 5;

    private HistoryChecker() {
    }

    public static Verdict check(History history) {
        List<Hold> holds = new ArrayList<>(history.holds());
        holds.sort(Comparator.comparingLong(Hold::acquiredNanos));
        List<String> overlapExamples = new ArrayList<>();
        long overlaps = 0;
        // Sweep in acquisition order, remembering the holds still claimed.
        List<Hold> open = new ArrayList<>();
        for (Hold hold : holds) {
            open.removeIf(earlier -> earlier.claimedUntilNanos() <= hold.acquiredNanos());
            for (Hold earlier : open) {
                if (earlier.overlaps(hold)) {
                    overlaps++;
                    example(overlapExamples, earlier.holder() + " (token " + earlier.token() + ") and "
                            + hold.holder() + " (token " + hold.token() + ") held it at once for "
                            + (Math.min(earlier.claimedUntilNanos(), hold.claimedUntilNanos()) - hold.acquiredNanos()) / 1_000
                            + " µs");
                }
            }
            open.add(hold);
        }

        List<String> grantExamples = new ArrayList<>();
        long grantsInsideClaims = 0;
        List<Hold> bySend = new ArrayList<>(holds);
        bySend.sort(Comparator.comparingLong(Hold::sentNanos));
        List<Hold> claiming = new ArrayList<>();
        for (Hold hold : bySend) {
            claiming.removeIf(earlier -> earlier.claimedUntilNanos() <= hold.sentNanos());
            for (Hold earlier : claiming) {
                if (earlier.mayHaveBeenGrantedDuring(hold) && !earlier.overlaps(hold)) {
                    grantsInsideClaims++;
                    example(grantExamples, hold.holder() + " (token " + hold.token() + ") may have been granted up to "
                            + (earlier.claimedUntilNanos() - hold.sentNanos()) / 1_000 + " µs before "
                            + earlier.holder() + " (token " + earlier.token() + ") last claimed the lock");
                }
            }
            claiming.add(hold);
        }

        List<String> tokenExamples = new ArrayList<>();
        long inversions = 0;
        for (int i = 1; i < holds.size(); i++) {
            if (holds.get(i).token() <= holds.get(i - 1).token()) {
                inversions++;
                example(tokenExamples, holds.get(i).holder() + " got token " + holds.get(i).token()
                        + " after " + holds.get(i - 1).holder() + " got " + holds.get(i - 1).token());
            }
        }

        List<String> staleExamples = new ArrayList<>();
        List<String> lostExamples = new ArrayList<>();
        long stale = 0;
        long lost = 0;
        int admitted = 0;
        int refused = 0;
        long highest = Long.MIN_VALUE;
        Long value = null;
        for (Write write : history.writes()) {
            if (!write.admitted()) {
                refused++;
                continue;
            }
            admitted++;
            if (write.token() < highest) {
                stale++;
                example(staleExamples, write.holder() + " wrote with token " + write.token() + " after token " + highest);
            }
            highest = Math.max(highest, write.token());
            if (value != null && write.before() != value) {
                lost++;
                example(lostExamples, write.holder() + " (token " + write.token() + ") read " + write.before()
                        + " but the resource held " + value + ": " + (value - write.before()) + " update(s) overwritten");
            }
            value = write.after();
        }
        return new Verdict(holds.size(), admitted, refused, overlaps, overlapExamples,
                grantsInsideClaims, grantExamples, inversions, tokenExamples,
                stale, staleExamples, lost, lostExamples);
    }

    private static void example(List<String> examples, String line) {
        if (examples.size() < EXAMPLES) {
            examples.add(line);
        }
    }
}
