package dev.leasehold.zookeeper;

import dev.leasehold.PermitsMismatchException;
import dev.leasehold.spi.Admission;

import java.util.List;

/**
 * One lock kind's rule over the shared queue of a lock name: given the nodes in server order and
 * the index of the acquisition's own node, whether it holds, and if not, which single node's
 * deletion could change that (the node to watch, so a release wakes one waiter, not the herd).
 * Every rule waits for each exclusive node ahead of it, so an exclusive holder is always at the
 * head of the queue and its token (its node's czxid) exceeds every token granted before it.
 */
sealed interface QueueRule {

    /** The outcome for one node: granted, or the node to watch (null: watch the whole directory). */
    record Decision(boolean granted, NodeName watch) {
        static final Decision GRANTED = new Decision(true, null);
    }

    /** The node-name kind letter of this rule's acquisitions. */
    char kind();

    /** The number of permits written into the node name (semaphores), else 0. */
    default int permits() {
        return 0;
    }

    /** How one client's acquisitions reach the server. */
    Admission admission();

    /** Decides for {@code queue.get(mine)} of lock {@code name}; {@code queue} is in sequence order. */
    Decision decide(String name, List<NodeName> queue, int mine);

    /** Mutex, fair lock and write lock: only the head of the queue holds; watch the node just ahead. */
    record Exclusive(Admission admission) implements QueueRule {
        @Override
        public char kind() {
            return NodeName.EXCLUSIVE;
        }

        @Override
        public Decision decide(String name, List<NodeName> queue, int mine) {
            return mine == 0 ? Decision.GRANTED : new Decision(false, queue.get(mine - 1));
        }
    }

    /** Read lease: holds while no exclusive node is ahead; watches the last exclusive node ahead. */
    record Read() implements QueueRule {
        @Override
        public char kind() {
            return NodeName.READ;
        }

        @Override
        public Admission admission() {
            return Admission.SHARED;
        }

        @Override
        public Decision decide(String name, List<NodeName> queue, int mine) {
            for (int i = mine - 1; i >= 0; i--) {
                if (queue.get(i).kind() == NodeName.EXCLUSIVE) {
                    return new Decision(false, queue.get(i));
                }
            }
            return Decision.GRANTED;
        }
    }

    /**
     * Semaphore permit: holds while no exclusive node is ahead and fewer than {@code permits}
     * permit nodes are. Blocked by the count, it watches the whole directory (as Curator's
     * {@code InterProcessSemaphoreV2} does): any of the permits ahead may go first.
     */
    record Permit(int permits) implements QueueRule {
        @Override
        public char kind() {
            return NodeName.PERMIT;
        }

        @Override
        public Admission admission() {
            return Admission.SHARED;
        }

        /** @throws PermitsMismatchException if a permit ahead was asked under another number of permits */
        @Override
        public Decision decide(String name, List<NodeName> queue, int mine) {
            int ahead = 0;
            for (int i = mine - 1; i >= 0; i--) {
                NodeName node = queue.get(i);
                if (node.kind() == NodeName.EXCLUSIVE) {
                    return new Decision(false, node);
                }
                if (node.kind() == NodeName.PERMIT) {
                    if (node.permits() != permits) {
                        throw new PermitsMismatchException(name, node.permits(), permits);
                    }
                    ahead++;
                }
            }
            return ahead < permits ? Decision.GRANTED : new Decision(false, null);
        }
    }
}
