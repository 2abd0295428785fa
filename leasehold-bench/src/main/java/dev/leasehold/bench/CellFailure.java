package dev.leasehold.bench;

/**
 * A cell (one contender in one workload, warm-up included) that threw instead of producing
 * figures. The run records it and goes on with the next cell, so one library's failure does not
 * lose the other cells' figures.
 *
 * @param contender whose cell failed
 * @param message   the error's one-line message: the innermost cause's class and message, first line only
 */
record CellFailure(Contender contender, String message) {

    /** The failure of {@code contender}'s cell with {@code error}. */
    static CellFailure of(Contender contender, Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = root.getMessage() == null ? root.getClass().getName()
                : root.getClass().getSimpleName() + ": " + root.getMessage();
        return new CellFailure(contender, text.lines().findFirst().orElse(text).strip());
    }

    /**
     * What the report shows instead of a figure: {@code failed: <message>}, and for a peer's cell
     * that this is a finding about the peer, not about Leasehold.
     */
    String report() {
        return "failed: " + message + (contender.leasehold() ? "" : " (a failure of the peer, not of Leasehold)");
    }
}
