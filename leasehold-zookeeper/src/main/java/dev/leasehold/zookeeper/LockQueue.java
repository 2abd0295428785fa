package dev.leasehold.zookeeper;

import dev.leasehold.PermitsMismatchException;
import dev.leasehold.engine.HolderIds;
import dev.leasehold.spi.QueueRule;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The queue of one lock name on ZooKeeper, as {@link ZooKeeperLockClient#queue(String)} read it.
 *
 * @param name    the lock name
 * @param entries every acquisition's node, in the ensemble's order
 */
public record LockQueue(String name, List<Entry> entries) {

    /**
     * One acquisition's node.
     *
     * @param kind     {@code exclusive} (mutex, fair or write lock), {@code read} or {@code permit}
     * @param permits  for a permit, the number of permits of the semaphore it was asked under; else 0
     * @param holder   the holder id, redacted
     * @param sequence the node's sequence number in the directory
     * @param holds    whether it holds the lock (the others wait)
     */
    public record Entry(String kind, int permits, String holder, long sequence, boolean holds) {
    }

    public LockQueue {
        entries = List.copyOf(entries);
    }

    /** Acquisitions that hold the lock now. */
    public List<Entry> holders() {
        return entries.stream().filter(Entry::holds).toList();
    }

    /** Acquisitions still waiting. */
    public long waiters() {
        return entries.stream().filter(entry -> !entry.holds()).count();
    }

    static LockQueue of(String name, List<String> children) {
        List<NodeName> queue = children.stream().map(NodeName::parse).flatMap(Optional::stream)
                .sorted(Comparator.comparingLong(NodeName::sequence)).toList();
        List<Entry> entries = new ArrayList<>();
        int granted = QueueRule.grantedPrefix(name, queue.stream().map(NodeName::entry).toList());
        for (int i = 0; i < queue.size(); i++) {
            NodeName node = queue.get(i);
            String kind = switch (node.kind()) {
                case NodeName.READ -> "read";
                case NodeName.PERMIT -> "permit";
                default -> "exclusive";
            };
            entries.add(new Entry(kind, node.permits(), HolderIds.redact(node.holder()), node.sequence(), i < granted));
        }
        return new LockQueue(name, entries);
    }

    /**
     * Permits of a {@code permits}-permit semaphore nobody holds now.
     *
     * @throws PermitsMismatchException if a permit in the queue was asked under another number
     */
    int availablePermits(String semaphore, int permits) {
        int held = 0;
        for (Entry entry : entries) {
            if (entry.kind().equals("permit") && entry.permits() != permits) {
                throw new PermitsMismatchException(semaphore, entry.permits(), permits);
            }
            if (entry.kind().equals("permit") && entry.holds()) {
                held++;
            }
        }
        return Math.max(0, permits - held);
    }
}
