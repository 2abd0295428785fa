package dev.leasehold.etcd;

import dev.leasehold.testkit.history.Hold;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** How long holders' claimed intervals overlapped: the figures a fault scenario prints (expected 0 ms). */
final class Overlaps {

    private Overlaps() {
    }

    /** The longest overlap of two holds' claims, in milliseconds; 0 when none overlap. */
    static double maxMillis(List<Hold> holds) {
        List<Hold> sorted = holds.stream().sorted(Comparator.comparingLong(Hold::acquiredNanos)).toList();
        long longest = 0;
        for (int i = 0; i < sorted.size(); i++) {
            for (int j = i + 1; j < sorted.size() && sorted.get(j).acquiredNanos() < sorted.get(i).claimedUntilNanos(); j++) {
                long overlap = Math.min(sorted.get(i).claimedUntilNanos(), sorted.get(j).claimedUntilNanos())
                        - sorted.get(j).acquiredNanos();
                longest = Math.max(longest, overlap);
            }
        }
        return longest / 1e6;
    }

    /** The total time during which two or more holders claimed the lock at once, in milliseconds. */
    static double totalMillis(List<Hold> holds) {
        List<long[]> events = new ArrayList<>();
        for (Hold hold : holds) {
            if (hold.claimedUntilNanos() > hold.acquiredNanos()) {
                events.add(new long[] {hold.acquiredNanos(), 1});
                events.add(new long[] {hold.claimedUntilNanos(), -1});
            }
        }
        // At equal times, ends before starts: a hold that ends as the next begins is no overlap.
        events.sort(Comparator.<long[]>comparingLong(event -> event[0]).thenComparingLong(event -> event[1]));
        long total = 0;
        int open = 0;
        long since = 0;
        for (long[] event : events) {
            if (open >= 2) {
                total += event[0] - since;
            }
            open += (int) event[1];
            since = event[0];
        }
        return total / 1e6;
    }
}
