package dev.leasehold.zookeeper;

import dev.leasehold.spi.Admission;

/**
 * What one lock kind writes into its nodes' names, and how one client's acquisitions of it reach
 * the server; which nodes hold is core's {@link dev.leasehold.spi.QueueRule}, read from the names.
 *
 * @param kind      the node-name kind letter ({@link NodeName#EXCLUSIVE}, {@link NodeName#READ},
 *                  {@link NodeName#PERMIT})
 * @param permits   the number of permits written into the node name (semaphores), else 0
 * @param admission how one client's acquisitions reach the server
 */
record NodeKind(char kind, int permits, Admission admission) {

    /** Mutex and write lock (one acquisition per client at a time), or fair lock (all queue at once). */
    static NodeKind exclusive(Admission admission) {
        return new NodeKind(NodeName.EXCLUSIVE, 0, admission);
    }

    static NodeKind read() {
        return new NodeKind(NodeName.READ, 0, Admission.SHARED);
    }

    static NodeKind permit(int permits) {
        return new NodeKind(NodeName.PERMIT, permits, Admission.SHARED);
    }
}
