package dev.leasehold.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The order in which contenders run in each round. */
final class Rounds {

    private Rounds() {
    }

    /**
     * The contenders rotated by {@code round}: each takes every position in turn, so none always
     * runs first (cold caches) or right after the same neighbour (its garbage, its JIT work).
     */
    static <T> List<T> order(List<T> contenders, int round) {
        List<T> rotated = new ArrayList<>(contenders);
        Collections.rotate(rotated, -(round % Math.max(1, contenders.size())));
        return rotated;
    }
}
