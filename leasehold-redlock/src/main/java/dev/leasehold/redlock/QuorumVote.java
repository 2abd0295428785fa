package dev.leasehold.redlock;

import dev.leasehold.NodeFailure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Counts the yes/no answers of every node to one call (a renewal, a release) and decides as soon as
 * the count allows: yes once a majority said yes, no once a majority can no longer say yes. A
 * frozen minority therefore never delays the result. Nodes that fail (unreachable, timed out)
 * count as neither; if they are what keeps the count from deciding, the outcome is
 * {@link Outcome#UNDECIDED} once every node has answered or timed out.
 */
final class QuorumVote {

    /** How the vote ended. */
    enum Outcome {
        /** A majority said yes. */
        YES,
        /** Fewer than a majority said yes, even counting every node that failed as a yes. */
        NO,
        /** Fewer than a majority said yes, but the nodes that failed might have. */
        UNDECIDED
    }

    /**
     * @param outcome  the decision
     * @param yes      yes answers counted when the decision was taken
     * @param failures one entry per node that did not say yes by then: its error, or
     *                 {@code noKind} for a no
     */
    record Result(Outcome outcome, int yes, List<NodeFailure> failures) {
    }

    private final List<RedlockNode> nodes;
    private final int quorum;
    private final NodeFailure.Kind noKind;
    private final AtomicReferenceArray<Object> answers;
    private final CompletableFuture<Result> decided = new CompletableFuture<>();
    private final CompletableFuture<Result> settled = new CompletableFuture<>();

    private QuorumVote(List<RedlockNode> nodes, int quorum, NodeFailure.Kind noKind) {
        this.nodes = nodes;
        this.quorum = quorum;
        this.noKind = noKind;
        this.answers = new AtomicReferenceArray<>(nodes.size());
    }

    /**
     * Counts {@code votes}, one per node in node order.
     *
     * @param noKind how a no is reported in {@link Result#failures()}
     */
    static QuorumVote count(List<RedlockNode> nodes, int quorum, List<CompletableFuture<Boolean>> votes,
                            NodeFailure.Kind noKind) {
        QuorumVote vote = new QuorumVote(nodes, quorum, noKind);
        for (int i = 0; i < votes.size(); i++) {
            int node = i;
            votes.get(i).whenComplete((yes, error) -> vote.answer(node, error == null ? yes : error));
        }
        return vote;
    }

    /** Completes as soon as the outcome is known. */
    CompletableFuture<Result> decided() {
        return decided;
    }

    /** Completes once every node has answered or timed out, with the final count. */
    CompletableFuture<Result> settled() {
        return settled;
    }

    private void answer(int node, Object answer) {
        answers.set(node, answer);
        int yes = 0;
        int no = 0;
        int pending = 0;
        for (int i = 0; i < answers.length(); i++) {
            Object a = answers.get(i);
            if (a == null) {
                pending++;
            } else if (Boolean.TRUE.equals(a)) {
                yes++;
            } else if (Boolean.FALSE.equals(a)) {
                no++;
            }
        }
        int failed = nodes.size() - yes - no - pending;
        if (yes >= quorum) {
            decided.complete(result(Outcome.YES, yes));
        } else if (yes + failed + pending < quorum) {
            decided.complete(result(Outcome.NO, yes));
        }
        if (pending == 0) {
            Outcome outcome = yes >= quorum ? Outcome.YES : yes + failed < quorum ? Outcome.NO : Outcome.UNDECIDED;
            Result last = result(outcome, yes);
            decided.complete(last);
            settled.complete(last);
        }
    }

    private Result result(Outcome outcome, int yes) {
        List<NodeFailure> failures = new ArrayList<>();
        for (int i = 0; i < answers.length(); i++) {
            Object a = answers.get(i);
            if (Boolean.FALSE.equals(a)) {
                failures.add(new NodeFailure(nodes.get(i).describe(), noKind, null));
            } else if (a instanceof Throwable error) {
                failures.add(nodes.get(i).failureOf(error));
            }
        }
        return new Result(outcome, yes, failures);
    }
}

