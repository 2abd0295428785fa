package dev.leasehold.redlock;

import dev.leasehold.NodeFailure;

/** What one node answered to one acquire round. */
sealed interface NodeAnswer {

    /** The node set the lock key for us and advanced its fencing counter to {@code counter}. */
    record Granted(long counter) implements NodeAnswer {
    }

    /**
     * Another holder has the key on this node.
     *
     * @param pttlMillis the holder's remaining ttl there, {@code -1} when the key has none
     */
    record Held(long pttlMillis) implements NodeAnswer {
    }

    /** The node could not be asked, or did not answer within the per-node timeout. */
    record Failed(NodeFailure failure) implements NodeAnswer {
    }
}
