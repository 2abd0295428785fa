package dev.leasehold.spi;

import dev.leasehold.LockKind;
import dev.leasehold.PermitsMismatchException;

import java.util.List;

/**
 * The one rule of every queue-based backend (ZooKeeper, etcd): given a lock name's entries in the
 * order the server created them, whether an acquisition holds, and if not, which entry's deletion
 * could change that, so a release wakes one waiter instead of the herd (Curator's
 * {@code getsTheLock}: {@code ourIndex < maxLeases}, watch the entry ahead).
 *
 * <p><b>Which kinds exclude each other</b> (the same answer on every backend, Redis included):
 * <ul>
 *   <li>an exclusive lease (mutex, fair lock, write lock) excludes every other exclusive and every
 *       read lease of the name; read leases share with each other;</li>
 *   <li>permits of one semaphore share, at most {@code permits} at once; a permit asked under
 *       another number while permits are queued or held is a {@link PermitsMismatchException};</li>
 *   <li>the lock family (exclusive and read) and the semaphore family do not exclude each other,
 *       as on Redis, where a semaphore lives in keys of its own.</li>
 * </ul>
 *
 * <p><b>Arrival order, for the tokens.</b> On a queue backend the fencing token is fixed when the
 * entry is created (a ZooKeeper czxid, an etcd create revision). So that a lease's token exceeds
 * every token granted before it for the name, whatever the kind, an entry is granted only once
 * every entry created before it is granted: the granted entries are always a prefix of the queue.
 * Deleting entries can only grant more of it, never take a grant back. The price is that a
 * permit waiting for a free permit delays a later mutex of the same name, which only programs
 * mixing the two families on one name see.
 *
 * <p>The rule is a pure function of the queue: every client reading the same queue reaches the
 * same decision for every entry.
 */
public final class QueueRule {

    /**
     * The outcome for one entry.
     *
     * @param granted whether the entry holds
     * @param watch   when blocked, the index of the entry whose deletion could grant it, or
     *                {@link #WHOLE_QUEUE} when any deletion ahead could (watch the whole queue);
     *                meaningless when granted
     */
    public record Decision(boolean granted, int watch) {

        /** Watch every entry of the queue: any deletion ahead may grant this one. */
        public static final int WHOLE_QUEUE = -1;

        static final Decision GRANTED = new Decision(true, WHOLE_QUEUE);

        /** Whether a blocked entry must watch the whole queue rather than one entry. */
        public boolean watchesWholeQueue() {
            return !granted && watch == WHOLE_QUEUE;
        }
    }

    private QueueRule() {
    }

    /**
     * Decides for {@code queue.get(mine)}.
     *
     * @param name  the lock name, for the mismatch message
     * @param queue the name's entries, in the order the server created them
     * @param mine  the index of the acquisition's own entry
     * @throws PermitsMismatchException if {@code mine} is a permit and a permit ahead of it was
     *                                  asked under another number of permits
     */
    public static Decision decide(String name, List<QueueEntry> queue, int mine) {
        QueueEntry own = queue.get(mine);
        Holders holders = new Holders();
        boolean aheadAllGranted = true;
        for (int i = 0; i < mine; i++) {
            QueueEntry entry = queue.get(i);
            if (own.mode() == QueueEntry.Mode.PERMIT && entry.mode() == QueueEntry.Mode.PERMIT
                    && entry.permits() != own.permits()) {
                throw new PermitsMismatchException(name, entry.permits(), own.permits());
            }
            aheadAllGranted = aheadAllGranted && holders.admit(entry);
        }
        if (aheadAllGranted && holders.admits(own)) {
            return Decision.GRANTED;
        }
        return new Decision(false, blockerInFamily(queue, mine, own));
    }

    /**
     * How many entries at the head of {@code queue} hold now: the granted entries are always a
     * prefix of the queue (see above). A permit asked under another number than a permit ahead of it
     * holds nothing, and ends the prefix.
     *
     * @param name  the lock name
     * @param queue the name's entries, in the order the server created them
     */
    public static int grantedPrefix(String name, List<QueueEntry> queue) {
        int granted = 0;
        try {
            while (granted < queue.size() && decide(name, queue, granted).granted()) {
                granted++;
            }
        } catch (PermitsMismatchException mixed) {
            // Its acquirer deletes the entry as soon as it sees the refusal; it holds nothing meanwhile.
        }
        return granted;
    }

    /**
     * How one client's acquisitions of {@code kind} reach a queue backend: the mutex and the write
     * lock one at a time (the client's others wait locally, so one handoff costs one attempt); the
     * fair lock, readers and permits all at once, since the server's queue alone orders them.
     */
    public static Admission admission(LockKind kind) {
        return kind.equals(LockKind.MUTEX) || kind.equals(LockKind.WRITE) ? Admission.EXCLUSIVE : Admission.SHARED;
    }

    /**
     * The entry ahead whose deletion the family's own rule waits for: for an exclusive entry the
     * nearest entry of the lock family, for a reader the nearest exclusive one, for a permit of a
     * one-permit semaphore the nearest permit. {@link Decision#WHOLE_QUEUE} when any of several
     * could free a place (a semaphore of many permits), or when nothing of its own family blocks it
     * (it waits for an entry of the other family to be granted first).
     */
    private static int blockerInFamily(List<QueueEntry> queue, int mine, QueueEntry own) {
        if (own.mode() == QueueEntry.Mode.PERMIT && own.permits() > 1) {
            return Decision.WHOLE_QUEUE;
        }
        for (int i = mine - 1; i >= 0; i--) {
            QueueEntry entry = queue.get(i);
            switch (own.mode()) {
                case EXCLUSIVE -> {
                    if (entry.inLockFamily()) {
                        return i;
                    }
                }
                case READ -> {
                    if (entry.mode() == QueueEntry.Mode.EXCLUSIVE) {
                        return i;
                    }
                }
                case PERMIT -> {
                    if (entry.mode() == QueueEntry.Mode.PERMIT) {
                        return i;
                    }
                }
            }
        }
        return Decision.WHOLE_QUEUE;
    }

    /** The holders granted so far while the queue is read from its head. */
    private static final class Holders {
        private boolean exclusive;
        private int readers;
        private int permits;

        boolean admits(QueueEntry entry) {
            return switch (entry.mode()) {
                case EXCLUSIVE -> !exclusive && readers == 0;
                case READ -> !exclusive;
                case PERMIT -> permits < entry.permits();
            };
        }

        /** Grants {@code entry} if the holders admit it. */
        boolean admit(QueueEntry entry) {
            if (!admits(entry)) {
                return false;
            }
            switch (entry.mode()) {
                case EXCLUSIVE -> exclusive = true;
                case READ -> readers++;
                case PERMIT -> permits++;
            }
            return true;
        }
    }
}
