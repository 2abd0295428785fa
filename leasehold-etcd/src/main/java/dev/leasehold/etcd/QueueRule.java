package dev.leasehold.etcd;

import dev.leasehold.PermitsMismatchException;
import dev.leasehold.etcd.internal.QueueKeys;
import io.etcd.jetcd.KeyValue;

import java.util.List;

/**
 * The rule of one lock kind over a name's queue of keys (see {@link QueueKeys}): which keys ahead
 * of an acquisition's own keep it waiting, and what it watches meanwhile.
 *
 * <p>One rule for every kind of a name (issue 19, defect 7): an exclusive key (mutex, fair lock,
 * write lock) excludes every other lock key, a read key only exclusive ones, and at most {@code n}
 * permits of a semaphore of {@code n} hold at once; the lock family and the permits do not exclude
 * each other. Grants follow creation order across every kind: a key holds only if every key created
 * before it holds too and it is compatible with them, so the holders are always a prefix of the queue
 * and a lease's token (its key's create revision) exceeds every token granted before it, whatever
 * the kind. The price: a permit waiting for a free permit delays a later lock of the same name.
 */
interface QueueRule {

    /** What a blocked acquisition watches: one key, or every key of the queue. */
    record Watch(KeyValue key, boolean wholeQueue) {
    }

    /** The tag of this kind's keys. */
    String tag();

    /**
     * Whether the acquisition whose key is {@code ahead.size()}-th in {@code queue} may hold.
     *
     * @param ahead the queue's keys created before the acquisition's own, oldest first
     * @param all   every key of the queue, oldest first
     * @return null if it holds, else what to watch for its turn
     * @throws PermitsMismatchException if a semaphore's live permits were taken under another number
     */
    Watch blockedBy(QueueKeys queue, String name, List<KeyValue> ahead, List<KeyValue> all);

    /** Mutex, fair lock, write lock. */
    QueueRule EXCLUSIVE = of(QueueKeys.EXCLUSIVE, 0);

    /** Read lock. */
    QueueRule READ = of(QueueKeys.SHARED, 0);

    /**
     * A semaphore of {@code permits}. A permit blocked by the count watches the whole queue when
     * several permits are allowed (any earlier permit's release may free a place), the nearest
     * earlier permit when only one is.
     */
    static QueueRule permits(int permits) {
        return of(QueueKeys.PERMIT, permits);
    }

    private static QueueRule of(char kind, int permits) {
        return new QueueRule() {
            @Override
            public String tag() {
                return kind == QueueKeys.PERMIT ? String.valueOf(kind) + permits : String.valueOf(kind);
            }

            @Override
            public Watch blockedBy(QueueKeys queue, String name, List<KeyValue> ahead, List<KeyValue> all) {
                if (kind == QueueKeys.PERMIT) {
                    for (KeyValue entry : all) {
                        if (queue.kindOf(entry.getKey()) == QueueKeys.PERMIT && queue.permitsOf(entry.getKey()) != permits) {
                            throw new PermitsMismatchException(name, queue.permitsOf(entry.getKey()), permits);
                        }
                    }
                }
                return decide(queue, kind, permits, ahead);
            }
        };
    }

    /** Grants the keys of {@code ahead} in creation order, then decides the acquisition's own key. */
    private static Watch decide(QueueKeys queue, char kind, int permits, List<KeyValue> ahead) {
        Granted granted = new Granted();
        boolean prefixGranted = true;
        boolean waitsForOtherFamily = false;
        for (KeyValue entry : ahead) {
            char entryKind = queue.kindOf(entry.getKey());
            if (prefixGranted && granted.admits(entryKind, queue.permitsOf(entry.getKey()))) {
                granted.add(entryKind);
            } else {
                prefixGranted = false;
                waitsForOtherFamily |= (entryKind == QueueKeys.PERMIT) != (kind == QueueKeys.PERMIT);
            }
        }
        if (prefixGranted && granted.admits(kind, permits)) {
            return null;
        }
        if (waitsForOtherFamily) {
            // Only programs mixing the families on one name get here: any earlier key's change may matter.
            return new Watch(ahead.get(ahead.size() - 1), true);
        }
        Watch own = switch (kind) {
            case QueueKeys.EXCLUSIVE -> nearest(queue, ahead, QueueKeys.EXCLUSIVE, QueueKeys.SHARED);
            case QueueKeys.SHARED -> nearest(queue, ahead, QueueKeys.EXCLUSIVE);
            default -> permits == 1 ? nearest(queue, ahead, QueueKeys.PERMIT) : null;
        };
        return own != null ? own : new Watch(ahead.get(ahead.size() - 1), true);
    }

    /** The holders counted so far, oldest first. */
    final class Granted {
        private int exclusive;
        private int readers;
        private int permits;

        /** Whether a key of {@code kind} (of a semaphore of {@code ofPermits}) is compatible with them. */
        boolean admits(char kind, int ofPermits) {
            return switch (kind) {
                case QueueKeys.EXCLUSIVE -> exclusive == 0 && readers == 0;
                case QueueKeys.SHARED -> exclusive == 0;
                default -> permits < ofPermits;
            };
        }

        void add(char kind) {
            switch (kind) {
                case QueueKeys.EXCLUSIVE -> exclusive++;
                case QueueKeys.SHARED -> readers++;
                default -> permits++;
            }
        }
    }

    /** The last key of {@code ahead} whose kind is one of {@code kinds}, as a watch, or null. */
    private static Watch nearest(QueueKeys queue, List<KeyValue> ahead, char... kinds) {
        for (int i = ahead.size() - 1; i >= 0; i--) {
            char kind = queue.kindOf(ahead.get(i).getKey());
            for (char blocking : kinds) {
                if (kind == blocking) {
                    return new Watch(ahead.get(i), false);
                }
            }
        }
        return null;
    }
}
