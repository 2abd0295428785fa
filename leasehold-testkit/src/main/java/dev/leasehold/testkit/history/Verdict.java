package dev.leasehold.testkit.history;

import java.util.List;

/**
 * What {@link HistoryChecker} found. Each list holds one readable line per finding, capped so a
 * broken run does not flood the log; the counts are exact. {@code grantsInsideClaims} is
 * information, not a violation (see {@link HistoryChecker}).
 */
public record Verdict(int holds, int admittedWrites, int refusedWrites,
                      long overlaps, List<String> overlapExamples,
                      long grantsInsideClaims, List<String> grantExamples,
                      long tokenInversions, List<String> tokenExamples,
                      long staleWritesAdmitted, List<String> staleExamples,
                      long lostUpdates, List<String> lostUpdateExamples) {

    /** True when no property was violated. */
    public boolean isValid() {
        return overlaps == 0 && tokenInversions == 0 && staleWritesAdmitted == 0 && lostUpdates == 0;
    }

    @Override
    public String toString() {
        return "Verdict[holds=" + holds + ", admitted writes=" + admittedWrites + ", refused writes=" + refusedWrites
                + ", overlapping holders=" + overlaps + " " + overlapExamples
                + ", grants possibly inside a claim=" + grantsInsideClaims + " " + grantExamples
                + ", token inversions=" + tokenInversions + " " + tokenExamples
                + ", stale writes admitted=" + staleWritesAdmitted + " " + staleExamples
                + ", lost updates=" + lostUpdates + " " + lostUpdateExamples + "]";
    }
}
